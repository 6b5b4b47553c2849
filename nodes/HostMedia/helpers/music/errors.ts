/**
 * What the music stream's errors say: silence, Max Wait, and a take whose audio has a hole. Each
 * says what had arrived, and that no take is passed on.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export const NOTHING_STARTED = 'No take had started; audio chunks received: 0.';

/** The item's error when the service sent nothing for `idleMs`; `progress` says what had arrived. */
export function silentError(context: IExecuteFunctions, itemIndex: number, idleMs: number, progress: string): NodeOperationError {
	const seconds = idleMs / 1000;
	return new NodeOperationError(
		context.getNode(),
		`The music stream went silent: nothing arrived for ${seconds} ${seconds === 1 ? 'second' : 'seconds'}, so the node closed the connection. ${progress}`,
		{
			itemIndex,
			description:
				'No take is passed on: without the service’s "complete" event the node cannot tell that the music was finished. If the service is only slow, raise Idle Timeout (Seconds); otherwise try again.',
		},
	);
}

/** The item's error when the stream was still going at Max Wait; `progress` says what had arrived. */
export function overdueError(context: IExecuteFunctions, itemIndex: number, totalMs: number, progress: string): NodeOperationError {
	const minutes = Math.round((totalMs / 60000) * 100) / 100;
	return new NodeOperationError(
		context.getNode(),
		`The music stream did not finish within ${minutes} ${minutes === 1 ? 'minute' : 'minutes'} (Max Wait), so the node closed the connection. ${progress}`,
		{
			itemIndex,
			description:
				'No take is passed on: without the service’s "complete" event the node cannot tell that the music was finished. For longer music, raise Max Wait (Minutes).',
		},
	);
}

/** What to do about a take that is not whole: said by every error of such a take. */
const NOT_WHOLE_NEXT = 'Try again, or turn on Accept Incomplete Takes to receive such takes marked audio_may_be_incomplete.';

/** The item's error when the stream completed without any audio of a take it announced (by its title). */
function missingAudioError(context: IExecuteFunctions, itemIndex: number, streamIndex: number): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`The music stream said it was complete, but no audio of take ${streamIndex + 1} arrived, though the stream announced that take`,
		{ itemIndex, description: `No take is passed on, since one the service announced is missing. ${NOT_WHOLE_NEXT}` },
	);
}

/**
 * The item's error when the stream completed but a take is not whole: none of its audio came,
 * fewer bytes than its WAV header announces (a chunk was lost: a line that could not be read), or
 * more (the audio of another take or stream mixed into it).
 */
export function holeError(
	context: IExecuteFunctions,
	itemIndex: number,
	take: { streamIndex: number; bytes: number; declaredBytes?: number },
	malformedLines: number,
): NodeOperationError {
	if (take.bytes === 0) return missingAudioError(context, itemIndex, take.streamIndex);
	const lines = `${malformedLines} ${malformedLines === 1 ? 'line' : 'lines'} of the stream could not be read`;
	const hole =
		take.declaredBytes === undefined
			? `may have a hole: ${lines}, and its format announces no length to check ${take.bytes} bytes against`
			: take.bytes > take.declaredBytes
				? `is longer than its WAV header announces: ${take.bytes} bytes arrived for the ${take.declaredBytes} it announces, so audio of another take may be mixed in`
				: `has a hole: ${take.bytes} of the ${take.declaredBytes} bytes its WAV header announces arrived`;
	return new NodeOperationError(
		context.getNode(),
		`The music stream said it was complete, but the audio of take ${take.streamIndex + 1} ${hole}`,
		{
			itemIndex,
			description: `${take.declaredBytes === undefined ? '' : `${lines}. `}No take is passed on, since its audio may not be that take's whole audio. ${NOT_WHOLE_NEXT}`,
		},
	);
}
