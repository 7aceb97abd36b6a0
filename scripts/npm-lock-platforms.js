// npm-lock-platforms.js - add back to ./package-lock.json the entries of
// other platforms' optional native packages (@rollup/rollup-darwin-x64,
// @oxlint/darwin-arm64 and friends) that a registry serving only Linux glibc
// ones leaves out, with the os/cpu/libc their name says: all `npm ci` needs
// to skip them here, instead of refusing the lock as out of sync with
// package.json.  Run from the directory of the lock:
// node scripts/npm-lock-platforms.js
const fs = require("fs");
const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8"));
const pkgs = lock.packages;
const re = /[-/](android|darwin|freebsd|linux|netbsd|openbsd|openharmony|sunos|aix|win32|windows)-(arm64|arm|x64|ia32|loong64|ppc64|riscv64|s390x|mips64el)(?:-(\w+))?$/;
let added = 0;
for (const [where, p] of Object.entries(pkgs)) {
	for (const [name, version] of Object.entries(p.optionalDependencies || {})) {
		const m = re.exec(name);
		const key = "node_modules/" + name;
		if (!m || pkgs[key] || pkgs[where + "/" + key])
			continue;
		// npm's own key order, so that a rewrite of a rewrite changes nothing
		const e = { version, cpu: [m[2]] };
		if (m[1] === "linux" && m[3])
			e.libc = [m[3].startsWith("musl") ? "musl" : "glibc"];
		Object.assign(e, { license: p.license, optional: true, os: [m[1] === "windows" ? "win32" : m[1]] });
		pkgs[key] = e;
		added++;
	}
}
lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) =>
	a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0));
fs.writeFileSync("package-lock.json", JSON.stringify(lock, null, 2) + "\n");
console.log(`lock rewritten (${added} optional platform entries added)`);
