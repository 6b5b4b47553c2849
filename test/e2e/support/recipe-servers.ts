/**
 * The servers the recipes (examples/recipes/) deliver to, each a Debian package run on a free
 * loopback port from a temporary folder, installed with apt-get when missing, stopped and its folder
 * deleted at the end: OpenSSH's sshd for SFTP (its own config, host key and user key; run as the
 * current user), Mosquitto for MQTT (with mosquitto_sub writing every topic's messages to a file), aiosmtpd for SMTP
 * (every mail into a Maildir the test reads), and GraphicsMagick for n8n's Edit Image node.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

import { ensureDebianPackages } from './debian-packages';
import { cleanEnv, freePort, removeOnExit, spawnGroup, tailOf, type GroupProcess } from './processes';
import { defaultProgress, type ProgressLog } from './runtime';

const SSHD = '/usr/sbin/sshd';
const MOSQUITTO = '/usr/sbin/mosquitto';
const MOSQUITTO_SUB = '/usr/bin/mosquitto_sub';
const SYSTEM_PYTHON = '/usr/bin/python3';
const AIOSMTPD = '/usr/lib/python3/dist-packages/aiosmtpd/__init__.py';
const AIOSMTPD_PACKAGE = { name: 'python3-aiosmtpd', provides: AIOSMTPD, label: 'aiosmtpd (SMTP server)' };
/** OpenSSH refuses to start as root without its privilege separation folder (the service would make it). */
const PRIVSEP_DIR = '/run/sshd';

export interface SftpServer {
	port: number;
	username: string;
	privateKey: string;
	/** A folder the SFTP user may write to (absolute path, as n8n's FTP node is given it). */
	root: string;
}

export interface MqttBroker {
	port: number;
	/** Every message seen on any topic since the broker started, in arrival order. */
	messages(): Array<{ topic: string; payload: string }>;
}

export interface MailServer {
	port: number;
	/** Every mail received so far, raw (headers and body). */
	mails(): string[];
}

/** The SMTP credential's data for n8n's Send Email node: the server on loopback, no TLS, no login. */
export function smtpCredentialData(server: MailServer): Record<string, unknown> {
	return { host: '127.0.0.1', port: server.port, secure: false, disableStartTls: true, user: '', password: '' };
}

/** An SMTP server alone, in its own temporary folder: `stop` ends it and deletes the folder. */
export interface StandaloneMailServer extends MailServer {
	stop(): Promise<void>;
}

export interface RecipeServers {
	sftp: SftpServer;
	mqtt: MqttBroker;
	smtp: MailServer;
	stop(): Promise<void>;
}

async function waitUntil(what: string, ready: () => boolean | Promise<boolean>, logFile: string, timeoutMs = 20000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await ready())) {
		if (Date.now() > deadline) throw new Error(`${what} did not start. Last lines of its log:\n${tailOf(logFile, 20)}`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

/** Whether something accepts TCP connections on the loopback port. */
async function listening(port: number): Promise<boolean> {
	const { connect } = await import('node:net');
	return await new Promise((resolve) => {
		const socket = connect(port, '127.0.0.1');
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

export async function ensureRecipePackages(progress: ProgressLog = defaultProgress): Promise<void> {
	await ensureDebianPackages(
		[
			{ name: 'openssh-server', provides: SSHD, label: 'OpenSSH server' },
			{ name: 'mosquitto', provides: MOSQUITTO, label: 'Mosquitto' },
			{ name: 'mosquitto-clients', provides: MOSQUITTO_SUB, label: 'Mosquitto clients' },
			AIOSMTPD_PACKAGE,
			{ name: 'graphicsmagick', provides: '/usr/bin/gm', label: 'GraphicsMagick' },
		],
		progress,
	);
}

async function startSftp(folder: string, groups: GroupProcess[], undo: Array<() => void>): Promise<SftpServer> {
	const dir = join(folder, 'sshd');
	const root = join(folder, 'sftp-files');
	mkdirSync(dir);
	mkdirSync(root);
	const keygen = (file: string) =>
		execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'recipes', '-f', file], { env: cleanEnv() });
	keygen(join(dir, 'host_key'));
	keygen(join(dir, 'user_key'));
	writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'user_key.pub')));
	const port = await freePort();
	const username = userInfo().username;
	const logFile = join(folder, 'sshd.log');
	writeFileSync(
		join(dir, 'sshd_config'),
		[
			`Port ${port}`,
			'ListenAddress 127.0.0.1',
			`HostKey ${join(dir, 'host_key')}`,
			'PidFile none',
			`AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
			'PubkeyAuthentication yes',
			'PasswordAuthentication no',
			'KbdInteractiveAuthentication no',
			'PermitRootLogin prohibit-password',
			// The keys live in a temporary folder, not in a home folder sshd would check the modes of.
			'StrictModes no',
			'UsePAM no',
			`AllowUsers ${username}`,
			'Subsystem sftp internal-sftp',
			'',
		].join('\n'),
	);
	if (process.getuid?.() === 0 && !existsSync(PRIVSEP_DIR)) {
		mkdirSync(PRIVSEP_DIR, { mode: 0o755 });
		undo.push(() => rmdirSync(PRIVSEP_DIR));
	}
	// -D: stay in the foreground (one process group to stop); -e: log to stderr, i.e. the log file.
	groups.push(
		spawnGroup(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { cwd: folder, env: cleanEnv(), logFile, orphanFolder: folder }),
	);
	await waitUntil('sshd', () => listening(port), logFile);
	return { port, username, privateKey: readFileSync(join(dir, 'user_key'), 'utf8'), root };
}

async function startMqtt(folder: string, groups: GroupProcess[]): Promise<MqttBroker> {
	const port = await freePort();
	const logFile = join(folder, 'mosquitto.log');
	const config = join(folder, 'mosquitto.conf');
	writeFileSync(config, [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', 'log_dest stderr', ''].join('\n'));
	groups.push(spawnGroup(MOSQUITTO, ['-c', config], { cwd: folder, env: cleanEnv(), logFile, orphanFolder: folder }));
	await waitUntil('Mosquitto', () => listening(port), logFile);

	// mosquitto_sub writes one line per message to a file: the topic, a tab, the payload (JSON here, so one line).
	const received = join(folder, 'mqtt-messages.txt');
	groups.push(
		spawnGroup(MOSQUITTO_SUB, ['-h', '127.0.0.1', '-p', String(port), '-t', '#', '-F', '%t\t%p', '-q', '1'], {
			cwd: folder,
			env: cleanEnv(),
			logFile: received,
			orphanFolder: folder,
		}),
	);
	const messages = () =>
		(existsSync(received) ? readFileSync(received, 'utf8') : '')
			.split('\n')
			.filter((line) => line.includes('\t'))
			.map((line) => ({ topic: line.slice(0, line.indexOf('\t')), payload: line.slice(line.indexOf('\t') + 1) }));
	// The subscriber connects on its own: a probe message it prints proves it is subscribed.
	await waitUntil(
		'mosquitto_sub',
		() => {
			if (messages().some((message) => message.topic === 'recipes/ready')) return true;
			execFileSync('mosquitto_pub', ['-h', '127.0.0.1', '-p', String(port), '-t', 'recipes/ready', '-m', 'ok'], { env: cleanEnv() });
			return false;
		},
		logFile,
	);
	return { port, messages };
}

async function startSmtp(folder: string, groups: GroupProcess[]): Promise<MailServer> {
	const port = await freePort();
	const maildir = join(folder, 'maildir');
	const logFile = join(folder, 'aiosmtpd.log');
	// Debian's python (the one python3-aiosmtpd is installed for), not whichever python3 is first on PATH.
	groups.push(
		spawnGroup(SYSTEM_PYTHON, ['-m', 'aiosmtpd', '-n', '-l', `127.0.0.1:${port}`, '-c', 'aiosmtpd.handlers.Mailbox', maildir], {
			cwd: folder,
			env: cleanEnv(),
			logFile,
			orphanFolder: folder,
		}),
	);
	await waitUntil('aiosmtpd', () => listening(port), logFile);
	return {
		port,
		mails: () =>
			['new', 'cur']
				.map((sub) => join(maildir, sub))
				.filter((dir) => existsSync(dir))
				.flatMap((dir) => readdirSync(dir).map((file) => readFileSync(join(dir, file), 'utf8'))),
	};
}

/** Only the SMTP server, for a case that checks a mail and delivers nowhere else (the crash cases' reports). */
export async function startMailServer(progress: ProgressLog = defaultProgress): Promise<StandaloneMailServer> {
	await ensureDebianPackages([AIOSMTPD_PACKAGE], progress);
	const folder = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-mail-'));
	const removeFolder = removeOnExit(folder);
	const groups: GroupProcess[] = [];
	const stop = async () => {
		for (const group of groups) await group.stop(5000);
		removeFolder();
	};
	try {
		return { ...(await startSmtp(folder, groups)), stop };
	} catch (error) {
		await stop();
		throw error;
	}
}

export async function startRecipeServers(progress: ProgressLog = defaultProgress): Promise<RecipeServers> {
	await ensureRecipePackages(progress);
	const folder = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-recipes-'));
	const removeFolder = removeOnExit(folder);
	const groups: GroupProcess[] = [];
	const undo: Array<() => void> = [];
	const stop = async () => {
		for (const group of groups.reverse()) await group.stop(5000);
		for (const step of undo.reverse()) step();
		removeFolder();
	};
	try {
		const sftp = await startSftp(folder, groups, undo);
		const mqtt = await startMqtt(folder, groups);
		const smtp = await startSmtp(folder, groups);
		return { sftp, mqtt, smtp, stop };
	} catch (error) {
		await stop();
		throw error;
	}
}
