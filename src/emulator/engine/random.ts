/**
 * Small, fast, reproducible randomness. The engine must give the same text for the same
 * input, seed and parameters on every machine, so nothing here may depend on Math.random.
 */
import { randomInt } from 'node:crypto';

/** FNV-1a over UTF-16 code units: stable across runs and platforms. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Combines numbers into one well-spread 32-bit hash (murmur3's finaliser after each step). */
export function mix(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const v of values) {
    h ^= v >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** mix(a, b) without the rest array: the planner scores every word of a class with it at each slot. */
export function mix2(a: number, b: number): number {
  let h = 0x9e3779b9;
  h ^= a >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  h ^= b >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Maps a 32-bit hash onto [0, 1). */
export function unit(hash: number): number {
  return (hash >>> 0) / 0x100000000;
}

/** mulberry32: a seeded generator of numbers in [0, 1). */
export function createRng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x100000000;
  };
}

/** A seed for sampling requests that did not bring one; watsonx echoes the seed it used. */
export function freshSeed(): number {
  return randomInt(1, 2 ** 31);
}
