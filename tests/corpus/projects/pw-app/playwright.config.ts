import { defineConfig } from "@playwright/test";

// Tests without a browser: no project names one, and no test asks for a page.
export default defineConfig({
  testDir: "./tests",
  workers: 1,
});
