// The help texts of the `anytool` command and its subcommands (`anytool serve --help` is @anytool/mcp's).

export const USAGE = `Usage: anytool <command> [options]

Commands:
  anytool build [-p tsconfig.json] [tsc options]     compile with schemas generated from the TypeScript types
  anytool schema <file.ts> [-p tsconfig.json]        print the tool definitions the build step would inline
  anytool list <module.js> [--format <format>]       print the tools a module exports
  anytool call <module.js> <tool> [<json> | -]       call one tool and print its result
  anytool serve <module.js> [options]                serve a module's tools over MCP (needs @anytool/mcp)

Options:
  -h, --help       show this help; anytool <command> --help shows a command's
  -v, --version    print the version of @anytool/schema

Exit codes: 0 done; 1 the command ran and failed (build errors, an error result);
2 a usage error (bad arguments, a file or module that does not load, no tools).
Errors are one line; set ANYTOOL_DEBUG=1 to print their stack traces too.
`;

export const BUILD_USAGE = `Usage: anytool build [-p tsconfig.json] [tsc options]

Compiles a TypeScript project like tsc, with the JSON Schemas of its tools generated
from their types and inlined into the output. Without -p it uses the tsconfig.json
found from the current directory, or the files and options on the command line.
With --noEmit it only checks. It compiles once (no --watch, no --build).

A build is skipped while every file the last passing build read and wrote is
unchanged (printing what that build printed); --force builds anyway, and
ANYTOOL_CACHE=0 never skips.

Exits with 1 when there is any error (tsc's or the build step's), with 2 when the
project cannot be read (a bad option, a missing or broken tsconfig.json).
`;

export const SCHEMA_USAGE = `Usage: anytool schema <file.ts> [-p tsconfig.json]

Prints, as JSON, the definitions the build step would inline for the tools declared
in one file, read in the program of the tsconfig.json found from the file (or the one
given with -p). Emits nothing. Exits with 1 when the build step finds an error.
`;

export const LIST_USAGE = `Usage: anytool list <module.js> [--format <format>] [--export <name>]

Prints the tools a JavaScript module (ES or CommonJS) exports: by default a table of
names and descriptions; with --format, their definitions as JSON.

Options:
  --format <format>   neutral (anytool's own definitions), openai, openai-responses,
                      anthropic, gemini or mcp; what a provider format drops or changes
                      is noted on stderr
  --json              the same as --format neutral
  --export <name>     only this export (repeatable)
  -h, --help          show this help

What counts as tools, as for anytool serve: tools (tool(), defineTool(), BaseTool
instances), instances of classes with @Tool methods, arrays of them and Toolsets
(when the module exports a Toolset, only its Toolsets). Build TypeScript first and
pass the compiled .js.
`;

export const CALL_USAGE = `Usage: anytool call <module.js> <tool> [<json> | -] [--export <name>]

Calls one tool of a module (as anytool list finds them) through a Toolset with a fresh
ExecutionContext, and prints the result: structured content as JSON, else its text.
The arguments are one JSON object (default {}); - reads them from stdin.

  anytool call dist/tools.js get_weather '{"city":"Oslo"}'
  echo '{"city":"Oslo"}' | anytool call dist/tools.js get_weather -

Options:
  --export <name>     look for the tool only in this export (repeatable)
  -h, --help          show this help

Exits with 1 when the result is an error result (its text goes to stderr), with 2
for a usage error (bad JSON, an unknown tool, a module that does not load).
`;
