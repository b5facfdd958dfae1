// Runs script embeds in a tiny fake DOM under node and prints what they did as JSON.
// Input (argv[2], JSON): {playerClass, existingLinks: [href], steps: [{run: js} | {load: true}]}
// A "load" step defines the player class and fires "load" on every script element.
"use strict";
const fs = require("fs");
const vm = require("vm");

const input = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));

class Element {
  constructor(tagName) {
    this.tagName = tagName;
    this.attributes = {};
    this.children = [];
    this.listeners = {};
  }
  setAttribute(name, value) {
    this.attributes[name] = String(value);
  }
  getAttribute(name) {
    return Object.prototype.hasOwnProperty.call(this.attributes, name)
      ? this.attributes[name]
      : null;
  }
  appendChild(child) {
    this.children.push(child);
    return child;
  }
  addEventListener(type, listener) {
    (this.listeners[type] = this.listeners[type] || []).push(listener);
  }
  getElementsByTagName(tagName) {
    const found = [];
    const walk = (node) => {
      for (const child of node.children) {
        if (child.tagName === tagName) found.push(child);
        walk(child);
      }
    };
    walk(this);
    return found;
  }
}

const html = new Element("html");
const head = html.appendChild(new Element("head"));
html.appendChild(new Element("body"));
for (const href of input.existingLinks || []) {
  const link = new Element("link");
  link.setAttribute("rel", "stylesheet");
  link.setAttribute("href", href);
  head.appendChild(link);
}
const document = {
  head,
  createElement: (tagName) => new Element(tagName),
  getElementsByTagName: (tagName) => html.getElementsByTagName(tagName),
};
const constructed = [];
const context = vm.createContext({ document });
context.window = context;
const log = [];

for (const step of input.steps) {
  if (step.run !== undefined) {
    vm.runInContext(step.run, context);
  } else if (step.load) {
    context[input.playerClass] = class {
      constructor(...args) {
        constructed.push(args);
      }
    };
    for (const script of html.getElementsByTagName("script")) {
      for (const listener of script.listeners.load || []) listener.call(script, { type: "load" });
    }
  }
  log.push({ constructed: constructed.length });
}

const describe = (tagName) =>
  html.getElementsByTagName(tagName).map((element) => element.attributes);
process.stdout.write(
  JSON.stringify({
    links: describe("link"),
    scripts: describe("script"),
    constructed,
    log,
  }),
);
