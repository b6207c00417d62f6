// The worker thread of `offloaded-validation.ts`: compiles the schemas it is sent (the same ajv
// options and linear-time pattern engine as on the event loop) and validates arguments against
// them, filling defaults, one request at a time.
import { parentPort } from 'node:worker_threads';
import type { JsonSchema } from '@anytool/core';
import { compileValidator, describeError, type ArgsValidator } from '@anytool/core/internal';
import { linearPatterns } from '../shared/linear-patterns.js';
import { MAX_PROBLEMS, type ValidationAnswer, type ValidationRequest } from './validation-messages.js';

const port = parentPort;
const validators = new Map<number, ArgsValidator>();

port?.on('message', (request: ValidationRequest) => {
  for (const key of request.forget) validators.delete(key);
  port.postMessage(answer(request));
});

function answer(request: ValidationRequest): ValidationAnswer {
  const { id, key, schema, args } = request;
  try {
    let validate = validators.get(key);
    if (validate === undefined) {
      if (schema === undefined) return { id, failed: 'the worker lost the schema it compiled' };
      validate = compileValidator(schema as JsonSchema, 'the tool', linearPatterns);
      validators.set(key, validate);
      // The deadline counts validation only: compiling a large schema is work the listing did once already.
      port!.postMessage({ id, compiled: true } satisfies ValidationAnswer);
    }
    const started = performance.now();
    if (validate(args)) return { id, args: args as Record<string, unknown>, ms: performance.now() - started };
    const problems = validate.problems();
    return { id, problems: problems.slice(0, MAX_PROBLEMS), more: Math.max(0, problems.length - MAX_PROBLEMS), ms: performance.now() - started };
  } catch (error) {
    return { id, failed: describeError(error) };
  }
}
