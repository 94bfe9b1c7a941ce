// What undici gets for `require('node:assert')` in the bundles (scripts/bundle.mjs). undici checks its own
// invariants with plain `assert(value)` calls; loading node:assert for them costs about 2.5 ms on every request.
// Node's assert is loaded only when one fails, and throws its usual AssertionError.
'use strict';
module.exports = function assert(value, message) {
  if (!value) require('node:assert')(value, message);
};
