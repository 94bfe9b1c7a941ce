// dist/run.cjs (scripts/bundle.mjs): everything a chosen command runs.
export { executeCommand } from '../execute.js';
