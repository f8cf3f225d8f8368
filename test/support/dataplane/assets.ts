// Moved to bench/testbed/dataplane/assets.ts (the traffic bench uses it too; bench code never imports
// test/support). Re-exported here so the tests' imports stay as they are: one copy.
export * from '../../../bench/testbed/dataplane/assets.ts';
