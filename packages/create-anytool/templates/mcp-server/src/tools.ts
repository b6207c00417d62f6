import { Tool, Toolset } from '@anytool/core';

export type Priority = 'low' | 'normal' | 'high';

export interface Note {
  id: number;
  text: string;
  priority: Priority;
}

/** A small notebook: each `@Tool` method is an MCP tool, its input schema made from its types and JSDoc. */
export class Notebook {
  private readonly notes: Note[] = [];

  /**
   * Add a note.
   * @param text What to remember
   * @param priority How much it matters
   */
  @Tool()
  addNote(text: string, priority: Priority = 'normal'): Note {
    const note = { id: this.notes.length + 1, text, priority };
    this.notes.push(note);
    return note;
  }

  /**
   * List the notes, the most important first.
   * @param priority Only the notes of this priority
   */
  @Tool({ annotations: { readOnly: true } })
  listNotes(priority?: Priority): Note[] {
    const rank: Record<Priority, number> = { high: 0, normal: 1, low: 2 };
    return this.notes.filter((note) => priority === undefined || note.priority === priority).sort((a, b) => rank[a.priority] - rank[b.priority]);
  }
}

/** What the server serves (also what `npx anytool-mcp serve dist/tools.js` would serve). */
export function notebookTools(): Toolset {
  return new Toolset(new Notebook());
}
