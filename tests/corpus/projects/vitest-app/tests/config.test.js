import { expect, test } from "vitest";
import { loadConfig, merge } from "../src/config.js";

test("loads a config without a host", () => {
  expect(loadConfig('{"port": 8080}').port).toBe(8080);
});

test("merges two configs", () => {
  expect(merge({ a: 1 }, { b: 2 })).toEqual({ a: 1, b: 2 });
});
