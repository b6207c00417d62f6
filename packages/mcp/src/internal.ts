/**
 * `@anytool/mcp/internal`: what the other anytool packages share with @anytool/mcp
 * (the `anytool serve` command of @anytool/schema runs the server from here).
 *
 * Not public API. Nothing here follows semantic versioning: any name may change or go
 * away in any release, patch releases included. Import from `@anytool/mcp` instead;
 * what a user needs is exported there.
 *
 * @packageDocumentation
 */

export { runServeCommand } from './server/serve-command.js';
export { mcpMain } from './cli/main.js';
