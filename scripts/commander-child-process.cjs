// What commander gets for `require('node:child_process')` in the bundles (scripts/bundle.mjs). commander loads it
// at start-up only to spawn executable subcommands, which textgen has none of; loading it costs about 4 ms on
// every run, help included. Loaded on first use instead.
'use strict';
module.exports = {
  spawn(...args) {
    return require('node:child_process').spawn(...args);
  },
};
