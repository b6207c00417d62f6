import { Tool, type ExecutionContext } from '@anytool/core';
import { mcpAuth } from '../../src';

const EMPTY = { type: 'object' as const, properties: {} };

/** The tools the auth tests serve: one per scope set, and one that says who calls. */
export class Notes {
  @Tool({ description: 'Reads the notes.', parameters: EMPTY, scopes: ['notes:read'] })
  read(): string {
    return 'note 1';
  }

  @Tool({ description: 'Writes a note.', parameters: EMPTY, scopes: ['notes:read', 'notes:write'] })
  write(): string {
    return 'written';
  }

  @Tool({ description: 'Says who calls.', parameters: EMPTY, context: true })
  whoami(_args: object, context: ExecutionContext): string {
    const auth = mcpAuth(context);
    return auth === undefined ? 'nobody' : `${auth.subject} via ${String(auth.clientId)} from ${String(auth.issuer)} [${auth.scopes.join(' ')}]`;
  }
}
