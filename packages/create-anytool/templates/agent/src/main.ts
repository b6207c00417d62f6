import { startAgent } from './agent.js';
import { QUESTION, chooseModel } from './model.js';

const { model, banner } = await chooseModel().catch((error: unknown) => {
  // A setup mistake (a missing client): its message says what to do, the stack trace would only hide it.
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
console.log(banner);
const { agent, close } = await startAgent(model);
try {
  const question = process.argv[2] ?? QUESTION;
  console.log(`> ${question}`);
  const result = await agent.run(question);
  console.log(result.text);
} finally {
  await close();
}
