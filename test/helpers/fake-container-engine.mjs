#!/usr/bin/env node
// A container engine's command line (`docker` / `podman`) as far as ci/start-quipu.mjs uses it, for
// tests on a machine where no engine runs: `run -d --rm --name N -p 127.0.0.1:P:3000 -e NAME...
// IMAGE` starts the `quipu serve` of FAKE_ENGINE_QUIPU_BIN in the background, as the image's
// entrypoint would, with only the variables named by -e, listening on P of 127.0.0.1; `stop N` stops
// it. Each run's arguments are kept in FAKE_ENGINE_DIR/N.json for the test to read.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [command, ...args] = process.argv.slice(2);
const dir = process.env.FAKE_ENGINE_DIR;
const fail = (message) => {
  console.error(`fake engine: ${message}`);
  process.exit(125);
};

if (command === 'run') {
  const options = { env: [] };
  let i = 0;
  for (; i < args.length && args[i].startsWith('-'); i++) {
    const flag = args[i];
    if (flag === '-d' || flag === '--rm') options[flag] = true;
    else if (flag === '--name') options.name = args[++i];
    else if (flag === '-p') options.publish = args[++i];
    else if (flag === '-e') options.env.push(args[++i]);
    else fail(`an option this fake does not know: ${flag}`);
  }
  const image = args[i];
  if (!options['-d'] || !options.name || !image) fail('run needs -d, --name and an image');
  const published = /^127\.0\.0\.1:(\d+):3000$/.exec(options.publish ?? '');
  if (!published) fail(`publish the image's port 3000 on 127.0.0.1, got ${options.publish}`);
  const named = Object.fromEntries(
    options.env.map((name) => (name.includes('=') ? fail(`-e ${name.split('=')[0]}=...: a value in the arguments`) : [name, process.env[name] ?? ''])),
  );
  const data = path.join(dir, options.name);
  fs.mkdirSync(data, { recursive: true });
  const server = spawn(process.execPath, [process.env.FAKE_ENGINE_QUIPU_BIN, 'serve'], {
    env: { PATH: process.env.PATH, ...named, PORT: published[1], HOST: '127.0.0.1', DATA_DIR: data },
    detached: true,
    stdio: 'ignore',
  });
  server.unref();
  fs.writeFileSync(path.join(dir, `${options.name}.json`), JSON.stringify({ args, image, pid: server.pid }));
  console.log(`fake${String(server.pid).padStart(12, '0')}`);
} else if (command === 'stop') {
  const { pid } = JSON.parse(fs.readFileSync(path.join(dir, `${args[0]}.json`), 'utf8'));
  process.kill(pid, 'SIGTERM');
  console.log(args[0]);
} else {
  fail(`a command this fake does not know: ${command}`);
}
