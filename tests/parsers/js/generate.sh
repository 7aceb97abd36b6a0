#!/bin/bash
# generate.sh - regenerate the JavaScript parser samples of tests/parsers/js/
# by running the real tools on small projects with planted failures.
#
# The projects are written under $ROOT (fixed: /tmp/callus-js, so that the
# absolute paths printed by eslint, mocha and node --test are the same on
# every regeneration and tests/unit/test_parse_js.c can name the workspace).
# Each project gets a hard-linked copy of tests/tools/node_modules, so that
# third-party frames print as node_modules/... as in a real install.
#
# eslint, tsc, jest, vitest and mocha come from tests/tools
# (scripts/install-test-tools.sh); node --test is node's own.  The wrapper
# samples need pnpm, yarn 1 and bun, which the project does not pin: give a
# node_modules/.bin holding them in $CALLUS_JS_WRAPPERS (e.g. after
# `npm install pnpm yarn@1 bun` in a scratch directory), else those samples
# are left as they are.
#
# Every sample is the command's stdout and stderr together, as printed; the
# command, its directory and its exit code are listed in cases.tsv.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
ROOT=/tmp/callus-js
TOOLS=$repo/tests/tools/node_modules
WRAP=${CALLUS_JS_WRAPPERS:-}

[ -x "$TOOLS/.bin/eslint" ] || { echo "generate.sh: run scripts/install-test-tools.sh" >&2; exit 1; }

rm -rf "$ROOT"
mkdir -p "$ROOT"
printf 'name\tdirectory\tcommand\texit\n' >"$here/cases.tsv"

# project NAME: a fresh git repository with node_modules
project() {
	mkdir -p "$ROOT/$1"
	git -C "$ROOT/$1" init -q
	cp -al "$TOOLS" "$ROOT/$1/node_modules" 2>/dev/null || cp -a "$TOOLS" "$ROOT/$1/node_modules"
}

# sample NAME DIR COMMAND [ENV...]: run COMMAND (through sh) in $ROOT/DIR
sample() {
	local name=$1 dir=$2 cmd=$3 rc
	shift 3
	(cd "$ROOT/$dir" && env -u NO_COLOR -u FORCE_COLOR CI=true PATH="${WRAP:+$WRAP:}$PATH" \
		"$@" sh -c "$cmd") \
		>"$here/$name.txt" 2>&1 </dev/null
	rc=$?
	printf '%s\t%s\t%s\t%s\n' "$name" "$dir" "$cmd" "$rc" >>"$here/cases.tsv"
}

# ---------------------------------------------------------------- eslint
project eslint
cd "$ROOT/eslint" || exit 1
mkdir -p src/lib src/gen
cat >package.json <<'EOF'
{
  "name": "lint-sample",
  "version": "1.0.0",
  "private": true,
  "scripts": { "lint": "eslint src/app.js src/broken.js src/lib" }
}
EOF
cat >eslint.config.js <<'EOF'
const js = require("@eslint/js");

module.exports = [
  js.configs.recommended,
  {
    files: ["**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "commonjs",
      globals: { require: "readonly", module: "writable", console: "readonly" },
    },
    rules: { "no-console": "warn", eqeqeq: "error", "prefer-const": "error" },
  },
];
EOF
cat >src/app.js <<'EOF'
const { format } = require("./lib/format");

function total(items) {
  const currency = "EUR";
  let sum = 0;
  for (const item of items) {
    if (item.price == null) continue;
    sum += item.price;
  }
  console.log("total", sum);
  return format(sum);
}

module.exports = { total };
EOF
cat >src/lib/format.js <<'EOF'
function format(n) {
  let s = n.toFixed(decimals);
  return s + " " + unit;
}

module.exports = { format };
EOF
cat >src/broken.js <<'EOF'
function broken( {
  return 1;
}
EOF
for i in $(seq -w 1 22); do
	{
		echo "// generated: unused bindings"
		for j in $(seq 1 6); do echo "const unused_${i}_$j = $j;"; done
		echo "module.exports = x$i;"
	} >"src/gen/mod$i.js"
done
small="src/app.js src/broken.js src/lib"
sample eslint-stylish eslint "node_modules/.bin/eslint src"
sample eslint-stylish-color eslint "node_modules/.bin/eslint --color $small"
sample eslint-unix eslint "node_modules/.bin/eslint -f unix $small"
sample eslint-compact eslint "node_modules/.bin/eslint -f compact $small"
sample eslint-json eslint "node_modules/.bin/eslint -f json $small"
sample npm-run-lint eslint "npm run lint"

# ---------------------------------------------------------------- tsc
project tsc
cd "$ROOT/tsc" || exit 1
mkdir -p src/models bad
cat >package.json <<'EOF'
{
  "name": "tsc-sample",
  "version": "1.0.0",
  "private": true,
  "scripts": { "typecheck": "tsc -p ." }
}
EOF
cat >tsconfig.json <<'EOF'
{
  "compilerOptions": {
    "target": "ES2020",
    "module": "commonjs",
    "strict": true,
    "noEmit": true
  },
  "include": ["src"]
}
EOF
cat >src/models/user.ts <<'EOF'
export interface User {
  id: number;
  name: string;
  email?: string;
}

export function makeUser(id: number, name: string): User {
  return { id, name };
}
EOF
cat >src/index.ts <<'EOF'
import { User, makeUser } from "./models/user";

const count: number = "three";

function greet(user: User): string {
  return "Hello, " + user.nam;
}

const u = makeUser("1", "Ann");
greet({ id: 2, name: "Bob", age: 40 });
console.log(missing(u));

export function area(r) {
  return Math.PI * r * r;
}
EOF
cat >src/config.ts <<'EOF'
type Settings = { port: number; host: string; tls: { cert: string; key: string } };

export const settings: Settings = {
  port: 8080,
  host: "localhost",
  tls: { cert: "a.pem", key: 42 },
};
EOF
cat >src/store.ts <<'EOF'
interface Item { sku: string; price: { amount: number; currency: string } }

export const items: Item[] = [
  { sku: "a-1", price: { amount: "12", currency: "EUR" } },
];

export function total(list: Item[]): Promise<number> {
  return list.reduce((s, i) => s + i.price.amount, 0);
}

export const onSku: (sku: string) => void = (sku: number) => {
  void sku;
};
EOF
cat >bad/tsconfig.json <<'EOF'
{"compilerOptions": {"strict": true, "noEmitt": true}}
EOF
echo 'export const x: number = 1;' >bad/a.ts
sample tsc-plain tsc "node_modules/.bin/tsc -p ."
sample tsc-pretty tsc "node_modules/.bin/tsc -p . --pretty"
sample tsc-config tsc "node_modules/.bin/tsc -p bad; node_modules/.bin/tsc -p nothere"
sample npm-run-typecheck tsc "npm run typecheck"

# ---------------------------------------------------------------- jest
write_sources() { # DIR cjs|esm
	local dir=$1 exp=
	mkdir -p "$dir/src"
	if [ "$2" = esm ]; then exp="export "; fi
	cat >"$dir/src/sum.js" <<EOF
${exp}function sum(a, b) {
  return a + b - (a > 1 ? 1 : 0);
}

${exp}function parsePrice(text) {
  if (!/^\\d+(\\.\\d+)?\$/.test(text)) {
    throw new TypeError(\`invalid price: \${text}\`);
  }
  return Number(text);
}
EOF
	cat >"$dir/src/cart.js" <<EOF
${exp}function cartTotal(cart) {
  return cart.items.reduce((t, i) => t + i.qty * i.price, 0);
}

${exp}function summary(cart) {
  return { count: cart.items.length, total: cartTotal(cart), currency: "USD" };
}
EOF
	if [ "$2" = cjs ]; then
		echo 'module.exports = { sum, parsePrice };' >>"$dir/src/sum.js"
		echo 'module.exports = { cartTotal, summary };' >>"$dir/src/cart.js"
	fi
}

project jest
cd "$ROOT/jest" || exit 1
write_sources . cjs
mkdir -p test
cat >package.json <<'EOF'
{
  "name": "jest-sample",
  "version": "1.0.0",
  "private": true,
  "scripts": { "test": "jest" }
}
EOF
cat >test/sum.test.js <<'EOF'
const { sum, parsePrice } = require("../src/sum");

describe("sum", () => {
  test("adds 1 + 2 to equal 3", () => {
    expect(sum(1, 2)).toBe(3);
  });

  test("adds 2 + 2 to equal 4", () => {
    expect(sum(2, 2)).toBe(4);
  });

  describe("parsePrice", () => {
    test("parses decimals", () => {
      expect(parsePrice("12.50")).toBe(12.5);
    });

    test("accepts a currency sign", () => {
      expect(parsePrice("$3")).toBe(3);
    });
  });
});
EOF
cat >test/cart.test.js <<'EOF'
const { cartTotal, summary } = require("../src/cart");

const cart = { items: [{ qty: 2, price: 5 }, { qty: 1, price: 3 }] };

test("cart total", () => {
  console.log("cart total is", cartTotal(cart));
  expect(cartTotal(cart)).toBe(13);
});

test("summary of a cart", () => {
  expect(summary(cart)).toEqual({ count: 2, total: 13, currency: "EUR" });
});

test("summary of a missing cart", () => {
  expect(summary(undefined).count).toBe(0);
});

test("slow checkout", async () => {
  await new Promise((r) => setTimeout(r, 500));
}, 50);
EOF
cat >test/broken.test.js <<'EOF'
const { sum } = require("../src/sum");

test("never runs", () => {
  expect(sum(1, 1).toBe(2);
});
EOF
sample jest jest "node_modules/.bin/jest"
sample jest-color jest "node_modules/.bin/jest" FORCE_COLOR=1
sample npm-test-jest jest "npm test"

# 25 suites (more than 20: jest then repeats every failure in a "Summary
# of all failing tests"), 125 failing tests
project jest-many
cd "$ROOT/jest-many" || exit 1
write_sources . cjs
mkdir -p test
echo '{ "name": "jest-many", "version": "1.0.0", "private": true, "scripts": { "test": "jest" } }' >package.json
for i in $(seq -w 1 25); do
	{
		echo 'const { sum } = require("../src/sum");'
		echo
		echo "describe(\"suite $i\", () => {"
		for j in 1 2 3 4 5; do
			echo "  test(\"case $j\", () => {"
			echo "    expect(sum($j, 2)).toBe($((j + 2 + 1)));"
			echo "  });"
		done
		echo "});"
	} >"test/s$i.test.js"
done
sample jest-many jest-many "node_modules/.bin/jest"

# a monorepo: the check runs in packages/api
project mono
cd "$ROOT/mono" || exit 1
mkdir -p packages/api/test
echo '{ "name": "mono", "private": true, "workspaces": ["packages/*"] }' >package.json
write_sources packages/api cjs
echo '{ "name": "api", "version": "1.0.0", "private": true, "scripts": { "test": "jest" } }' \
	>packages/api/package.json
cat >packages/api/test/cart.test.js <<'EOF'
const { summary } = require("../src/cart");

test("summary of a missing cart", () => {
  expect(summary(undefined).count).toBe(0);
});
EOF
sample npm-test-jest-mono mono/packages/api "npm test"

# ---------------------------------------------------------------- vitest
project vitest
cd "$ROOT/vitest" || exit 1
write_sources . esm
mkdir -p test
cat >package.json <<'EOF'
{
  "name": "vitest-sample",
  "version": "1.0.0",
  "private": true,
  "type": "module",
  "scripts": { "test": "vitest run" }
}
EOF
cat >test/sum.test.js <<'EOF'
import { describe, test, expect } from "vitest";
import { sum, parsePrice } from "../src/sum";

describe("sum", () => {
  test("adds 1 + 2 to equal 3", () => {
    expect(sum(1, 2)).toBe(3);
  });

  test("adds 2 + 2 to equal 4", () => {
    expect(sum(2, 2)).toBe(4);
  });

  describe("parsePrice", () => {
    test("parses decimals", () => {
      expect(parsePrice("12.50")).toBe(12.5);
    });

    test("accepts a currency sign", () => {
      expect(parsePrice("$3")).toBe(3);
    });
  });
});
EOF
cat >test/cart.test.js <<'EOF'
import { test, expect } from "vitest";
import { cartTotal, summary } from "../src/cart";

const cart = { items: [{ qty: 2, price: 5 }, { qty: 1, price: 3 }] };

test("cart total", () => {
  console.log("cart total is", cartTotal(cart));
  expect(cartTotal(cart)).toBe(13);
});

test("summary of a cart", () => {
  expect(summary(cart)).toEqual({ count: 2, total: 13, currency: "EUR" });
});

test("summary of a missing cart", () => {
  expect(summary(undefined).count).toBe(0);
});
EOF
cat >test/extra.test.js <<'EOF'
import { describe, test, expect } from "vitest";
import { parsePrice } from "../src/sum";

describe("prices", () => {
  test.each(["1$", "2€"])("rejects %s", (p) => {
    expect(() => parsePrice(p)).toThrow(/currency/);
  });

  test("leaks an exception", async () => {
    setTimeout(() => { throw new RangeError("late failure in timer"); }, 1);
    await new Promise((r) => setTimeout(r, 20));
  });
});
EOF
cat >test/broken.test.js <<'EOF'
import { test, expect } from "vitest";
import { sum } from "../src/sum";

test("never runs", () => {
  expect(sum(1, 1).toBe(2);
});
EOF
sample vitest vitest "node_modules/.bin/vitest run" NO_COLOR=1
sample vitest-color vitest "node_modules/.bin/vitest run" FORCE_COLOR=1
if [ -n "$WRAP" ]; then
	sample pnpm-test-vitest vitest "pnpm test"
fi

project vitest-many
cd "$ROOT/vitest-many" || exit 1
write_sources . esm
mkdir -p test
echo '{ "name": "vitest-many", "version": "1.0.0", "private": true, "type": "module" }' >package.json
for i in $(seq -w 1 12); do
	{
		echo 'import { describe, test, expect } from "vitest";'
		echo 'import { sum } from "../src/sum";'
		echo
		echo "describe(\"suite $i\", () => {"
		for j in $(seq 1 10); do
			echo "  test(\"case $j\", () => {"
			echo "    expect(sum($j, 2)).toBe($((j + 2 + 1)));"
			echo "  });"
		done
		echo "});"
	} >"test/s$i.test.js"
done
sample vitest-many vitest-many "node_modules/.bin/vitest run"

# ---------------------------------------------------------------- mocha
project mocha
cd "$ROOT/mocha" || exit 1
write_sources . cjs
mkdir -p test
cat >package.json <<'EOF'
{
  "name": "mocha-sample",
  "version": "1.0.0",
  "private": true,
  "scripts": { "test": "mocha 'test/**/*.spec.{js,mjs}'" }
}
EOF
cat >test/sum.spec.js <<'EOF'
const assert = require("node:assert");
const { sum, parsePrice } = require("../src/sum");

describe("sum", function () {
  it("adds 1 + 2 to equal 3", function () {
    assert.strictEqual(sum(1, 2), 3);
  });

  it("adds 2 + 2 to equal 4", function () {
    assert.strictEqual(sum(2, 2), 4);
  });

  describe("parsePrice", function () {
    it("parses decimals", function () {
      assert.strictEqual(parsePrice("12.50"), 12.5);
    });

    it("accepts a currency sign", function () {
      assert.strictEqual(parsePrice("$3"), 3);
    });
  });
});
EOF
cat >test/cart.spec.js <<'EOF'
const assert = require("node:assert");
const { cartTotal, summary } = require("../src/cart");

const cart = { items: [{ qty: 2, price: 5 }, { qty: 1, price: 3 }] };

describe("cart", function () {
  it("computes the total", function () {
    assert.strictEqual(cartTotal(cart), 13);
  });

  it("summarises a cart", function () {
    assert.deepStrictEqual(summary(cart), { count: 2, total: 13, currency: "EUR" });
  });

  it("summarises a missing cart", function () {
    assert.strictEqual(summary(undefined).count, 0);
  });

  it("loads prices asynchronously", async function () {
    const price = await Promise.resolve("7");
    assert.ok(price === 7, "price should be a number");
  });
});

describe("db", function () {
  beforeEach(function () {
    throw new Error("connection refused");
  });

  it("connects", function () {});
});

describe("slow", function () {
  it("calls back in time", function (done) {
    this.timeout(20);
  });
});
EOF
cat >test/esm.spec.mjs <<'EOF'
import assert from "node:assert";

describe("esm module", function () {
  it("compares strings", function () {
    assert.equal("left", "right");
  });
});
EOF
sample mocha mocha "node_modules/.bin/mocha 'test/**/*.spec.{js,mjs}'"
sample mocha-color mocha "node_modules/.bin/mocha --color 'test/**/*.spec.{js,mjs}'"
sample mocha-tap mocha "node_modules/.bin/mocha --reporter tap 'test/**/*.spec.{js,mjs}'"
if [ -n "$WRAP" ]; then
	sample yarn-test-mocha mocha "yarn test"
fi

project mocha-many
cd "$ROOT/mocha-many" || exit 1
write_sources . cjs
mkdir -p test
echo '{ "name": "mocha-many", "version": "1.0.0", "private": true }' >package.json
for i in $(seq -w 1 11); do
	{
		echo 'const assert = require("node:assert");'
		echo 'const { sum } = require("../src/sum");'
		echo
		echo "describe(\"suite $i\", function () {"
		for j in $(seq 1 10); do
			echo "  it(\"case $j\", function () {"
			echo "    assert.strictEqual(sum($j, 2), $((j + 2 + 1)));"
			echo "  });"
		done
		echo "});"
	} >"test/s$i.spec.js"
done
sample mocha-many mocha-many "node_modules/.bin/mocha"

# ---------------------------------------------------------------- node --test
project nodetest
cd "$ROOT/nodetest" || exit 1
write_sources . cjs
mkdir -p test
cat >package.json <<'EOF'
{
  "name": "node-test-sample",
  "version": "1.0.0",
  "private": true,
  "scripts": { "test": "node --test" }
}
EOF
cat >test/sum.test.js <<'EOF'
const test = require("node:test");
const { describe, it } = require("node:test");
const assert = require("node:assert");
const { sum, parsePrice } = require("../src/sum");

describe("sum", () => {
  it("adds 1 + 2 to equal 3", () => {
    assert.strictEqual(sum(1, 2), 3);
  });

  it("adds 2 + 2 to equal 4", () => {
    assert.strictEqual(sum(2, 2), 4);
  });

  describe("parsePrice", () => {
    it("accepts a currency sign", () => {
      assert.strictEqual(parsePrice("$3"), 3);
    });
  });
});

test("top-level deep equal", () => {
  assert.deepStrictEqual({ a: 1, b: [1, 2] }, { a: 1, b: [1, 3] });
});
EOF
cat >test/cart.test.js <<'EOF'
const test = require("node:test");
const assert = require("node:assert");
const { summary } = require("../src/cart");

test("summary of a missing cart", () => {
  assert.strictEqual(summary(undefined).count, 0);
});

test("cart with subtests", async (t) => {
  await t.test("counts items", () => {
    assert.strictEqual(summary({ items: [] }).count, 1);
  });
});
EOF
sample node-test-tap nodetest "node --test"
sample node-test-spec nodetest "node --test --test-reporter=spec"
sample node-test-spec-color nodetest "node --test --test-reporter=spec" FORCE_COLOR=1
if [ -n "$WRAP" ]; then
	sample bun-run-test-node nodetest "bun run test"
fi

project nodetest-many
cd "$ROOT/nodetest-many" || exit 1
write_sources . cjs
mkdir -p test
echo '{ "name": "nodetest-many", "version": "1.0.0", "private": true }' >package.json
{
	echo 'const { describe, it } = require("node:test");'
	echo 'const assert = require("node:assert");'
	echo 'const { sum } = require("../src/sum");'
	for i in $(seq 1 11); do
		echo
		echo "describe(\"suite $i\", () => {"
		for j in $(seq 1 10); do
			echo "  it(\"case $j\", () => {"
			echo "    assert.strictEqual(sum($j, 2), $((j + 2 + 1)));"
			echo "  });"
		done
		echo "});"
	done
} >test/many.test.js
sample node-test-many nodetest-many "node --test"

# the seeds of fuzz/fuzz_parsers_js.c: every sample but the largest
mkdir -p "$repo/fuzz/corpus/parsers_js"
rm -f "$repo/fuzz/corpus/parsers_js/"*.txt
for f in "$here"/*.txt; do
	case $f in *-many.txt) continue ;; esac
	cp "$f" "$repo/fuzz/corpus/parsers_js/"
done

echo "generate.sh: $(($(wc -l <"$here/cases.tsv") - 1)) samples in $here"
