import { expect, test } from "@playwright/test";
import { format } from "../src/money";

test("formats zero", () => {
  expect(format(0)).toBe("0.00");
});
