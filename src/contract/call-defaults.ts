/**
 * The one place of the timeout and retry defaults: the config resolution (src/config/resolve.ts) applies them to a
 * profile that sets none, and the HTTP client (src/http/client.ts) to a request made without a profile.
 */

/** How long a call may stay silent (no byte, no event) before it is given up: 5 minutes (`--timeout`, `timeout:`). */
export const DEFAULT_TIMEOUT_MS = 300_000;

/** How often a failed request is tried again (`--retries`, `retries:`). */
export const DEFAULT_RETRIES = 2;

/**
 * More retries than this only turn an outage into a wait of hours (each waits up to 8 s, or 60 s when the
 * service says so): `--retries 100000` would look like a hang.
 */
export const MAX_RETRIES = 10;
