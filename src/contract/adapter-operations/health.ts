/** `health`: what an adapter implements to say which requests prove an endpoint works. Types only. */
import type { ResolvedProfile } from '../profile.js';
import type { HttpRequestSpec } from '../http.js';

/** One request of a health check. */
export interface HealthProbe {
  /** Short name for the report: "models", "deployments", "version", "live", "ready", "metadata". */
  name: string;
  request: HttpRequestSpec;
  /** False: the answer only adds information (a version); its failure leaves the verdict alone. */
  required: boolean;
  /** What a successful answer says about the server's version. */
  version?(bodyText: string): string | undefined;
  /**
   * Throws UnexpectedAnswer (src/contract/errors.ts) when a 2xx answer is not the protocol's (a web page on the URL answers 200
   * to everything): such an endpoint is not healthy.
   */
  check?(bodyText: string): void;
}

export interface HealthOperation {
  probes(profile: ResolvedProfile): HealthProbe[];
  /** The API version date the probes speak, for protocols that put one on the wire. */
  apiVersion?(profile: ResolvedProfile): string;
}
