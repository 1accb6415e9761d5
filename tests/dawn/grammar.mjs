// Tokenises every .dyn file of the repository with the editor grammar
// (editors/vscode/syntaxes/dyn.tmLanguage.json) through vscode-textmate, VS Code's own TextMate
// engine, and checks it: every line tokenises, every keyword of the lexer
// (crates/syntax/src/lexer.rs, `fn keyword`) comes out as a keyword or language constant, and a
// few scopes of examples/collatz.dyn are what an editor should show.
//
// Usage: node tests/dawn/grammar.mjs REPO_ROOT   (exit 0: all checks passed; 1: a check failed)
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import vsctm from 'vscode-textmate';
import oniguruma from 'vscode-oniguruma';

const require = createRequire(import.meta.url);
const root = path.resolve(process.argv[2] ?? '.');
const grammarPath = path.join(root, 'editors/vscode/syntaxes/dyn.tmLanguage.json');

const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm')).buffer;
await oniguruma.loadWASM(wasm);
const registry = new vsctm.Registry({
  onigLib: Promise.resolve({
    createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
    createOnigString: (s) => new oniguruma.OnigString(s),
  }),
  loadGrammar: async (scope) => (scope === 'source.dyn' ? vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath) : null),
});
const grammar = await registry.loadGrammar('source.dyn');
if (!grammar) throw new Error(`could not load ${grammarPath}`);

// Every line of `text` as [{ text, scopes }] tokens.
function tokenise(text) {
  let stack = vsctm.INITIAL;
  return text.split('\n').map((line) => {
    const r = grammar.tokenizeLine(line, stack);
    stack = r.ruleStack;
    return r.tokens.map((t) => ({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes }));
  });
}

const failures = [];
function walk(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith('.dyn')) out.push(p);
  }
  return out;
}
const files = ['examples', 'tests/programs', 'tests/ui'].flatMap((d) => walk(path.join(root, d), []));
let lines = 0;
for (const f of files) {
  try {
    lines += tokenise(fs.readFileSync(f, 'utf8')).length;
  } catch (e) {
    failures.push(`${path.relative(root, f)}: ${e.message}`);
  }
}

// The lexer's keywords, read from its source so that a new one cannot be forgotten here.
const lexer = fs.readFileSync(path.join(root, 'crates/syntax/src/lexer.rs'), 'utf8');
const body = lexer.slice(lexer.indexOf('fn keyword('), lexer.indexOf('_ => return None', lexer.indexOf('fn keyword(')));
const keywords = [...body.matchAll(/"([a-z_]+)" => Tok::/g)].map((m) => m[1]);
if (keywords.length < 20) failures.push(`found only ${keywords.length} keywords in lexer.rs: has \`fn keyword\` changed shape?`);
for (const k of keywords) {
  const [tok] = tokenise(k)[0];
  if (!tok || tok.text !== k || !tok.scopes.some((s) => s.startsWith('keyword.') || s.startsWith('constant.language.'))) {
    failures.push(`keyword \`${k}\` gets scopes ${JSON.stringify(tok?.scopes)}`);
  }
}

// A few scopes an editor should show on the collatz example.
const collatz = tokenise(fs.readFileSync(path.join(root, 'examples/collatz.dyn'), 'utf8')).flat();
const expect = [
  ['// Collatz step counts', 'comment.line.double-slash.dyn'],
  ['stage', 'keyword.other.declaration.dyn'],
  ['start', 'entity.name.function.dyn'],
  ['@index', 'entity.other.attribute-name.wgsl'],
  ['become', 'keyword.control.graph.dyn'],
  ['step', 'entity.name.function.stage.dyn'],
  ['u32', 'support.type.wgsl'],
  ['if', 'keyword.control.wgsl'],
  ['3u', 'constant.numeric.integer.wgsl'],
  ['var', 'storage.type.wgsl'],
  ['Walk', 'support.function.wgsl'],
  ['input', 'keyword.other.declaration.dyn'],
  ['entry', 'keyword.other.declaration.dyn'],
];
for (const [text, scope] of expect) {
  const hit = collatz.find((t) => t.text.startsWith(text) && t.scopes.includes(scope));
  if (!hit) {
    const seen = collatz.filter((t) => t.text.startsWith(text)).map((t) => t.scopes.slice(1).join(' '));
    failures.push(`examples/collatz.dyn: no \`${text}\` with scope ${scope} (seen: ${JSON.stringify([...new Set(seen)])})`);
  }
}

if (failures.length > 0) {
  process.stderr.write(`grammar.mjs: ${failures.length} failures:\n${failures.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`grammar.mjs: ${files.length} files, ${lines} lines tokenised; ${keywords.length} keywords and ${expect.length} scopes checked\n`);
