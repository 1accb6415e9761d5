//! The editor grammar (editors/vscode/syntaxes/dyn.tmLanguage.json) tokenises every example,
//! test program and UI case with vscode-textmate, gives every keyword of the lexer a keyword
//! scope, and the expected scopes on examples/collatz.dyn (tests/dawn/grammar.mjs checks them).
//! Needs node and `npm ci` in tests/dawn (`scripts/test` does both); never skips.

mod support;

#[test]
fn grammar_tokenises_every_dyn_file() {
    let script = support::dawn_script("grammar.mjs");
    let textmate = support::repo_root().join("tests/dawn/node_modules/vscode-textmate");
    assert!(
        textmate.is_dir(),
        "{} is missing: run `scripts/test` (it runs `npm ci` in tests/dawn)",
        textmate.display()
    );
    let run = support::run_node(&[script.display().to_string(), support::repo_root().display().to_string()]);
    assert!(run.status.success(), "{}\n{}", run.command, run.output);
    eprintln!("{}", run.output.trim());
}
