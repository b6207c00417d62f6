import type * as TS from 'typescript';
import { ts } from '../typescript.js';

/** What a tool's code uses of its context parameter, in the shape of core's `ContextAccess` (JSON, emitted into the build information). */
export interface ContextUse {
  state?: { read?: string[]; write?: string[] };
  events?: true | 'record' | 'read';
  progress?: true;
}

const READS = new Set(['get', 'has']);
const WRITES = new Set(['set', 'delete']);

function literalKey(node: TS.Expression | undefined): string | undefined {
  if (node === undefined) return undefined;
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text : undefined;
}

/**
 * Reads which parts of the context a tool's body uses through its context
 * parameter: `context.state.get('key')` / `.has` (read), `.set('key', ...)` /
 * `.delete` (write), `context.record` (events: record), `context.events` /
 * `context.droppedEvents` / `context.subscribe` (events: read), `context.progress`. A state key that is
 * not a string literal, or `context.state` used any other way (iterated, passed
 * on, destructured), leaves state out of the inference: the tool must declare
 * it. Uses through another name (a helper the context is passed to) are not
 * followed. Returns undefined when nothing beyond the signal is used.
 */
export function inferContextUse(checker: TS.TypeChecker, body: TS.Node | undefined, parameter: TS.ParameterDeclaration): ContextUse | undefined {
  if (body === undefined || !ts.isIdentifier(parameter.name)) return undefined;
  const symbol = checker.getSymbolAtLocation(parameter.name);
  if (symbol === undefined) return undefined;
  const read = new Set<string>();
  const write = new Set<string>();
  let stateUnknown = false;
  let record = false;
  let readEvents = false;
  let progress = false;

  const visit = (node: TS.Node): void => {
    if (ts.isIdentifier(node) && node !== parameter.name && checker.getSymbolAtLocation(node) === symbol) {
      const access = node.parent;
      if (access !== undefined && ts.isPropertyAccessExpression(access) && access.expression === node) {
        const member = access.name.text;
        if (member === 'state') {
          const method = access.parent;
          const call = method?.parent;
          if (
            method !== undefined &&
            ts.isPropertyAccessExpression(method) &&
            method.expression === access &&
            call !== undefined &&
            ts.isCallExpression(call) &&
            call.expression === method
          ) {
            const key = literalKey(call.arguments[0]);
            const name = method.name.text;
            if (key !== undefined && READS.has(name)) read.add(key);
            else if (key !== undefined && WRITES.has(name)) write.add(key);
            else stateUnknown = true;
          } else stateUnknown = true;
        } else if (member === 'record') record = true;
        else if (member === 'events' || member === 'droppedEvents' || member === 'subscribe') readEvents = true;
        else if (member === 'progress') progress = true;
      } else if (access !== undefined && ts.isElementAccessExpression(access) && access.expression === node) {
        stateUnknown = true;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(body);

  const use: ContextUse = {};
  if (!stateUnknown && (read.size > 0 || write.size > 0)) {
    use.state = {};
    if (read.size > 0) use.state.read = [...read];
    if (write.size > 0) use.state.write = [...write];
  }
  if (record || readEvents) use.events = record && readEvents ? true : record ? 'record' : 'read';
  if (progress) use.progress = true;
  return Object.keys(use).length === 0 ? undefined : use;
}
