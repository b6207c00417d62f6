import type { BaseTool, DynamicToolSource } from '@anytool/core';

/** A dynamic tool source whose tools a test replaces (`set`), telling its listeners as an MCP server's list change would. */
export class ChangingSource implements DynamicToolSource {
  tools: BaseTool[];
  private readonly listeners: Array<() => void> = [];

  constructor(...tools: BaseTool[]) {
    this.tools = tools;
  }

  set(...tools: BaseTool[]): void {
    this.tools = tools;
    // A copy: a listener may unsubscribe while it is told.
    for (const listener of [...this.listeners]) listener();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.push(listener);
    return () => this.listeners.splice(this.listeners.indexOf(listener), 1);
  }
}
