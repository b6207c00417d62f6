/**
 * `@anytool/core/internal`: what the other anytool packages share with core.
 *
 * Not public API. Nothing here follows semantic versioning: any name may change or go
 * away in any release, patch releases included. Import from `@anytool/core` instead;
 * what a user needs is exported there.
 *
 * @packageDocumentation
 */

export { describeError, toError } from './thrown-value.js';
export { isPlainObject, isRecord } from './is-record.js';
export { now } from './clock.js';
export { abortWatch, unwatchAbort, watchAbort, type AbortWaiter } from './abort-watch.js';
export { BUILD_INFO, WHOLE_ARGUMENTS } from './build-info.js';
export { sniffMimeType, toBase64 } from './tool-result.js';
export { unknownToolText } from './toolset.js';
export { LoweringMemo } from './providers/lowering-memo.js';
export { loadToolModule } from './module-tools.js';
export { MAX_TOOL_NAME_LENGTH, TOOL_NAME_RULES, checkToolName, suggestToolName } from './tool-name.js';
export { compileValidator, formatProblems, schemaProblems } from './validation.js';
export type { ArgsValidator, ArgumentProblem } from './validation.js';
export { budgetChars } from './pipeline/output-budget.js';
export { unrestrictedContext } from './execution-context.js';
export { maxErrorCharsProblem } from './error-text.js';
export { allowPausing, canPause, giveAnswers, interrupt, takeAnswer, takeInterruptions } from './interruptions.js';
export { recordInterruption, takeAnswers, takeInterruption, takeOwnAnswer } from './interruptions.js';
export { canonicalJson, sha256Hex } from './pipeline/tool-pins.js';
export { closestName } from './closest-name.js';
export { compileNullStripper } from './validation.js';
export { isStandardSchema, issuesToProblems, standardToJsonSchema } from './standard-schema.js';
export { exampleProblems } from './tool-examples.js';
export { needOpenTelemetry, nothingRegistered, openTelemetry, providersGiven } from './tracing/otel.js';
export type { OpenTelemetry } from './tracing/otel.js';
