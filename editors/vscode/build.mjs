// Builds with esbuild: out/extension.js (the extension, one file), out/gen-tools.js, and with
// --tests every test/unit/*.test.ts into out/test/. --production minifies and drops source maps.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';

const production = process.argv.includes('--production');
const tests = process.argv.includes('--tests');
const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning' };

fs.rmSync('out', { recursive: true, force: true });
await esbuild.build({
  ...common,
  entryPoints: ['src/extension.ts'],
  outfile: 'out/extension.js',
  external: ['vscode'],
  minify: production,
  sourcemap: !production,
});
await esbuild.build({ ...common, entryPoints: ['src/gen-tools.ts'], outfile: 'out/gen-tools.js' });
if (tests) {
  const dir = 'test/unit';
  const entryPoints = fs.readdirSync(dir).filter((f) => f.endsWith('.test.ts')).map((f) => path.join(dir, f));
  await esbuild.build({ ...common, entryPoints, outdir: 'out/test', external: ['vscode'] });
}
