// A thin client: everything (diagnostics, fixes, hover) comes from `dralint lsp`,
// the dralint the user installed, so its compiled dependencies match their platform
// and Python. Nothing is bundled and nothing is fetched at run time.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

async function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("dralint").get("command", ["dralint", "lsp"]);
  client = new LanguageClient(
    "dralint",
    "dralint",
    { command, args, options: { env: process.env } },
    {
      documentSelector: [
        { scheme: "file", language: "yaml" },
        { scheme: "file", language: "json" },
        { scheme: "untitled", language: "yaml" },
      ],
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/.dralint.{yaml,yml}") },
    },
  );
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("dralint.command")) {
        await deactivate();
        await activate(context);
      }
    }),
  );
  try {
    await client.start();
  } catch (error) {
    vscode.window.showErrorMessage(
      `dralint: could not start '${[command, ...args].join(" ")}' (${error.message}). Install it with pip install 'dralint[lsp]' or set dralint.command.`,
    );
  }
}

async function deactivate() {
  if (client) {
    const running = client;
    client = undefined;
    await running.stop();
  }
}

module.exports = { activate, deactivate };
