// ts-patch (tspc) plugin entry. It sits at the package root so ts-patch reads this package's
// package.json ("tsp": { "tscOptions": { "parseAllJsDoc": true } }): tsc skips JSDoc otherwise.
module.exports = require('./dist/cjs/ways-in/ts-patch.js');
