/**
 * More retries than this only turn an outage into a wait of hours (each waits up to 8 s, or 60 s when the
 * service says so): `--retries 100000` would look like a hang.
 */
export const MAX_RETRIES = 10;
