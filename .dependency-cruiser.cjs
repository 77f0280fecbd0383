// Import rules checked by `npm run depcheck` (part of `npm run check` and CI).
const { join } = require('node:path');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A module must not reach itself again through its imports, not even through `import type`: ' +
        'a cycle makes load order matter and the parts impossible to read or test alone.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'web-shared-code-not-from-features',
      severity: 'error',
      comment:
        "The console's lib/ and components/ are used by the features; they never import a feature " +
        '(what two features share moves down into lib/ or components/).',
      from: { path: '^web/src/(lib|components)/' },
      to: { path: '^web/src/features/' },
    },
    {
      name: 'web-screens-call-through-api-modules',
      severity: 'error',
      comment:
        "A console screen (.tsx) never calls the server itself: its feature's api.ts holds the calls " +
        '(query hooks and request functions).',
      from: { path: '^web/src/.+\\.tsx$', pathNot: '\\.test\\.tsx$' },
      to: { path: '^web/src/lib/api-client\\.ts$' },
    },
    {
      name: 'domain-stays-pure',
      severity: 'error',
      comment: 'domain/ is shared by server and console: it imports neither.',
      from: { path: '^domain/src/' },
      to: { path: '^(server|web)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    // Type-only imports are cruised too, so a cycle of them is reported.
    tsPreCompilationDeps: true,
    // The server's tsconfig resolves the `.js` suffixes of its imports to the .ts sources; the path is
    // absolute because a relative one makes the TypeScript version here look for its `extends` beside it.
    tsConfig: { fileName: join(__dirname, 'server/tsconfig.json') },
  },
};
