import { resultText } from '@anytool/core';
import { ScriptedModel, latestToolResults, type Model } from '@anytool/agent';

export const QUESTION = 'What is 17 + 25, and how many miles is a 42.195 km marathon?';

/**
 * The model the agent runs on. With OPENAI_API_KEY (or OPENAI_BASE_URL, for any OpenAI-compatible server) set, a
 * real one through the official `openai` client (`npm i openai`); otherwise a ScriptedModel that replays the turns a
 * model would take, so the project runs offline and its tests need no key. The tools run for real either way.
 */
export async function chooseModel(env: NodeJS.ProcessEnv = process.env): Promise<{ model: Model; banner: string }> {
  if (env['OPENAI_API_KEY'] || env['OPENAI_BASE_URL']) {
    // Loaded only here: the `openai` client it needs is installed only for a real model.
    const { OpenAIModel } = await import('@anytool/agent/openai').catch((error: unknown) => {
      throw new Error('OPENAI_API_KEY is set, but the `openai` client is not installed: run npm i openai', { cause: error });
    });
    const model = new OpenAIModel({
      model: env['OPENAI_MODEL'] ?? 'gpt-4.1-mini',
      apiKey: env['OPENAI_API_KEY'] || 'unused-by-local-servers',
      ...(env['OPENAI_BASE_URL'] ? { baseURL: env['OPENAI_BASE_URL'] } : {}),
    });
    return { model, banner: `Running on ${model.name} (set OPENAI_MODEL to change it).` };
  }
  return { model: scriptedModel(), banner: 'Running on a scripted model (set OPENAI_API_KEY to use a real one).' };
}

/** Two turns: call both tools at once, then answer from their results. */
export function scriptedModel(): ScriptedModel {
  return new ScriptedModel([
    {
      toolCalls: [
        { name: 'add', arguments: { a: 17, b: 25 } },
        { name: 'units_convertDistance', arguments: { value: 42.195, from: 'km', to: 'mi' } },
      ],
    },
    (request) => {
      const [sum, miles] = latestToolResults(request).map((call) => resultText(call.result));
      return { text: `17 + 25 = ${sum}, and a 42.195 km marathon is ${miles} miles.` };
    },
  ]);
}
