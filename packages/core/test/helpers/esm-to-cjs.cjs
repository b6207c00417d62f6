// A jest transform for dependencies that ship ES modules only (arktype): jest runs
// CommonJS, so their JavaScript is compiled to it with TypeScript, as the tests are.
const { createHash } = require('node:crypto');
const ts = require('typescript');

module.exports = {
  process(source, fileName) {
    const { outputText } = ts.transpileModule(source, {
      fileName,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, allowJs: true, esModuleInterop: true },
    });
    return { code: outputText };
  },
  getCacheKey(source, fileName) {
    return createHash('sha256').update(ts.version).update('\0').update(fileName).update('\0').update(source).digest('hex');
  },
};
