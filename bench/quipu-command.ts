// A one-shot `quipu` command of any build: the CLI that knows a server's database is the one of
// the server's own build (another build's CLI could migrate it under the server, or not read it).
import { startServerProcess } from '../test/helpers/quipu-processes.js';

/** Runs `quipu args` with node's `entry` (see startServerProcess: the compiled `quipu` unless given); what it printed on stdout. */
export async function quipuCommand(args: string[], env: Record<string, string>, entry?: string[]): Promise<string> {
  const command = startServerProcess(env, args, entry);
  let stdout = '';
  command.child.stdout!.on('data', (d) => (stdout += d));
  // 'close', not 'exit': the command's output may still be on its way when it exits.
  const code = await new Promise<number | null>((resolve) => command.child.once('close', resolve));
  if (code !== 0) throw new Error(`quipu ${args.join(' ')} exited with ${code}:\n${command.output()}`);
  return stdout;
}
