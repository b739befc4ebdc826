/**
 * Architecture boundaries, checked on every test run (scripts/local/test.sh):
 * - libs/domain is pure: no NestJS, Kafka, database, HTTP or other Settle libs;
 * - apps never import each other;
 * - a lib is imported only through its public index (the @settle/<lib> alias);
 * - libs never import apps;
 * - libs/receiver (the receiver kit customers install from its own package) imports no other
 *   Settle lib, app or script, and only packages its own package.json declares.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'a module never depends on itself through others: cycles hide the order things are built in',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-dev-dep',
      severity: 'error',
      comment: 'what ships (apps, libs) imports only runtime dependencies, never devDependencies (tests and benchmarks may)',
      from: { path: '^(apps|libs)/[^/]+/src/', pathNot: '^libs/(receiver|testing)/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'libs/domain imports no framework, transport or storage code',
      from: { path: '^libs/domain' },
      to: {
        path: ['^libs/(?!domain)', '^apps/', 'node_modules/(@nestjs|kafkajs|@kafkajs|pg|undici|fastify|pino|cockatiel|@kurrent)'],
      },
    },
    {
      name: 'domain-uses-no-io-builtins',
      severity: 'error',
      from: { path: '^libs/domain' },
      to: { dependencyTypes: ['core'], path: '^(fs|net|http|https|child_process|dgram|dns|tls)$' },
    },
    {
      name: 'apps-do-not-import-each-other',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'libs-do-not-import-apps',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'libs-only-through-their-index',
      severity: 'error',
      comment: 'apps, scripts and tests import a lib through @settle/<lib> (its src/index.ts), never a deep path',
      from: { path: '^(apps|scripts|test)/' },
      to: { path: '^libs/[^/]+/src/(?!index\\.ts$)' },
    },
    {
      name: 'receiver-kit-is-standalone',
      severity: 'error',
      comment: 'libs/receiver ships to customers as @settle/receiver: nothing of Settle may come with it (its tests may use @settle/testing)',
      from: { path: '^libs/receiver/' },
      to: { path: '^(libs/(?!receiver/|testing/)|apps/)' },
    },
    {
      name: 'testing-stays-out-of-src',
      severity: 'error',
      comment: '@settle/testing (libs/testing) is for tests, benchmarks and the tools of scripts/: nothing that ships imports it',
      from: { path: '^(apps|libs)/[^/]+/src/', pathNot: '^libs/testing/' },
      to: { path: '^libs/testing/' },
    },
    {
      name: 'receiver-kit-source-is-self-contained',
      severity: 'error',
      comment: 'libs/receiver/src imports only its own files, so it works from its packed tarball',
      from: { path: '^libs/receiver/src/' },
      to: {
        path: '^(libs|apps|scripts|test|bench)/',
        pathNot: '^libs/receiver/src/',
      },
    },
    {
      name: 'receiver-kit-declares-its-packages',
      severity: 'error',
      comment: 'libs/receiver/src imports only packages of libs/receiver/package.json (dependencies, optional peers)',
      from: { path: '^libs/receiver/src/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown', 'npm-dev', 'npm-bundled'] },
    },
    {
      name: 'libs-use-other-libs-through-their-index',
      severity: 'error',
      from: { path: '^libs/([^/]+)/' },
      to: { path: '^libs/[^/]+/src/(?!index\\.ts$)', pathNot: '^libs/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules stay visible as leaves (doNotFollow), so that rules on packages can match them.
    exclude: { path: '(^|/)dist/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
