// The test tools of the MCP conformance suite's Tasks scenarios (the `io.modelcontextprotocol/tasks`
// extension). A tool marked `task` answers a client that supports tasks with a task at once and runs on;
// the client polls tasks/get. Clients without the extension get plain calls. A tool marked `deferTask` asks
// in the request first (input_required rounds) and becomes a task when it calls startTask().
import { AnytoolError, ErrorCode, type ExecutionContext, Tool } from '@anytool/core';
import { mcpSession, type McpSession } from '@anytool/mcp';

const CONFIRM = { type: 'object' as const, properties: { confirm: { type: 'boolean' as const } }, required: ['confirm'] };
const NAME = { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] };

/** Waits `ms`, or rejects as soon as `signal` aborts (the task was cancelled). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(new AnytoolError(ErrorCode.Aborted, 'cancelled'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new AnytoolError(ErrorCode.Aborted, 'cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function sessionOf(context: ExecutionContext, tool: string): McpSession {
  const session = mcpSession(context);
  if (session === undefined) throw new Error(`${tool} talks to the MCP client that called it; serve it with serveMcp or anytool serve`);
  return session;
}

export class TaskConformanceTools {
  /**
   * Greets someone (a plain tool: never a task).
   * @param name Who to greet
   */
  @Tool({ name: 'greet' })
  greet(name: string): string {
    return `Hello, ${name}!`;
  }

  /**
   * Works for `seconds` seconds, reporting progress each second, then says it is done.
   * @param seconds How long to work
   * @param label A name for this run
   */
  @Tool({ name: 'slow_compute', task: true })
  async slowCompute(seconds: number, label: string | undefined, context: ExecutionContext): Promise<string> {
    for (let done = 0; done < seconds; done++) {
      context.progress(done, seconds, `computing ${label ?? ''} (${done}/${seconds} s)`.replace('  ', ' '));
      await sleep(1000, context.signal);
    }
    return `Computed ${label ?? 'result'} in ${seconds} s`;
  }

  /** Fails after a second with a tool error (a result with isError). A task tool only: other clients are refused. */
  @Tool({ name: 'failing_job', task: 'required' })
  async failingJob(context: ExecutionContext): Promise<string> {
    await sleep(1000, context.signal);
    throw new Error('failing_job failed on purpose');
  }

  /**
   * Ends with a protocol error, not a tool error: it asks the client for its roots, which a
   * client that did not declare the roots capability cannot give (-32021).
   */
  @Tool({ name: 'protocol_error_job', task: true })
  async protocolErrorJob(context: ExecutionContext): Promise<string> {
    const { roots } = await sessionOf(context, 'protocol_error_job').listRoots({ inputKey: 'roots' });
    return `${roots.length} root(s)`;
  }

  /**
   * Asks the user to confirm, then deletes (pretends to) the file.
   * @param filename The file to delete
   */
  @Tool({ name: 'confirm_delete', task: true })
  async confirmDelete(filename: string, context: ExecutionContext): Promise<string> {
    const answer = await sessionOf(context, 'confirm_delete').elicitInput(
      { message: `Delete ${filename}?`, requestedSchema: CONFIRM },
      { inputKey: 'confirm' },
    );
    return answer.action === 'accept' && answer.content?.['confirm'] === true ? `Deleted ${filename}` : `Kept ${filename}`;
  }

  /** Asks two questions at once (both pending together), then answers with both. */
  @Tool({ name: 'multi_input', task: true })
  async multiInput(context: ExecutionContext): Promise<string> {
    const session = sessionOf(context, 'multi_input');
    const [first, second] = await Promise.all([
      session.elicitInput({ message: 'Your name?', requestedSchema: NAME }, { inputKey: 'name' }),
      session.elicitInput({ message: 'Confirm?', requestedSchema: CONFIRM }, { inputKey: 'confirm' }),
    ]);
    return `name=${String(first.content?.['name'] ?? '')} confirm=${String(second.content?.['confirm'] ?? '')}`;
  }

  /** Asks for the user's name in the request, then greets them from a task. A task tool only: other clients are refused. */
  @Tool({ name: 'test_tool_with_task', task: 'required', deferTask: true })
  async testToolWithTask(context: ExecutionContext): Promise<string> {
    const session = sessionOf(context, 'test_tool_with_task');
    const answer = await session.elicitInput({ message: 'What is your name?', requestedSchema: NAME }, { inputKey: 'user_name' });
    const name = answer.action === 'accept' ? String(answer.content?.['name'] ?? 'stranger') : 'stranger';
    await session.startTask();
    await sleep(100, context.signal);
    return `Hello, ${name}! (from a task)`;
  }
}
