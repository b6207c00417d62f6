// The demo's structured answer: after the travel run, the same conversation is
// asked once more for the plan as data, in the schema of a TypeScript type
// (`schemaOf<TripPlan>()`, written in by the build step). Each provider gets it
// as its native structured output; the answer is validated, and one that does
// not match gets one repair turn. The tools stay offered (the conversation has
// their calls), with `toolChoice: 'none'`: the model only answers.
import { resultText, type Toolset } from '@anytool/core';
import { Agent, ScriptedModel, schemaOf, type Model, type ModelMessage, type ModelRequest } from '@anytool/agent';

/** The weekend plan, as the application stores it. */
export interface TripPlan {
  /** The city to go to. */
  city: string;
  nights: number;
  /** Hotel and dinner together, in euros. */
  totalEur: number;
  /** The hotel hold's reference, when a room was held. */
  holdReference?: string;
}

const PLAN_REQUEST = 'Give me the plan as data.';

/** Asks `model` for the plan of the `conversation` so far (the scripted travel model gets a scripted one) and prints it. */
export async function printTripPlan(model: Model, tools: Toolset, conversation: readonly ModelMessage[]): Promise<TripPlan | undefined> {
  const planner = new Agent({
    model: model instanceof ScriptedModel ? scriptedPlanner() : model,
    tools,
    toolChoice: 'none',
    output: schemaOf<TripPlan>(),
    instructions: 'Answer with the plan agreed in the conversation.',
  });
  const { output, steps, usageByModel } = await planner.run([...conversation, { role: 'user', content: PLAN_REQUEST }]);
  const repairs = steps - 1;
  console.log(`\nstructured answer (${repairs} repair turn(s)): ${JSON.stringify(output)}`);
  console.log(`tokens by model: ${JSON.stringify(usageByModel)}`);
  return output;
}

/**
 * The planner's turns replayed offline: its first answer gives the nights as
 * words, which the schema refuses; the repair turn, told so, sends a number.
 * The values come from the tool results of the conversation.
 */
function scriptedPlanner(): ScriptedModel {
  const fromTools = (request: ModelRequest): Omit<TripPlan, 'nights'> => {
    const texts = request.messages.flatMap((m) => (m.role === 'tool' ? [{ name: m.name, text: resultText(m.result) }] : []));
    const hold = texts.find((t) => t.name === 'hold_room')?.text ?? '';
    const sum = texts.filter((t) => t.name.endsWith('get-sum')).at(-1)?.text ?? '';
    const reference = /reference (\S+)/.exec(hold)?.[1];
    const plan: Omit<TripPlan, 'nights'> = { city: /held in (\w+)/.exec(hold)?.[1] ?? 'unknown', totalEur: Number(/(\d+)\.?$/.exec(sum)?.[1] ?? NaN) };
    if (reference !== undefined) plan.holdReference = reference;
    return plan;
  };
  return new ScriptedModel(
    [
      (request) => ({ text: JSON.stringify({ ...fromTools(request), nights: 'two' }) }),
      (request) => ({ text: JSON.stringify({ ...fromTools(request), nights: 2 }) }),
    ],
    { name: 'scripted planner' },
  );
}
