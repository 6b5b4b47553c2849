/**
 * The test index: for a source file of nodes/ or credentials/ with logic (the rule is in
 * test-map.ts) that has no test at its mirrored path, the tests that exercise it; for a file that
 * has one, the other tests worth knowing. Operation files are run through their node, so their
 * tests are the engine tests that name their resource and operation; a helper's are the tests
 * that import it or run an operation (or node) that reaches it. test/repo/test-index.test.ts keeps
 * every entry true: the source exists, each test exists and exercises it.
 */
export const TEST_INDEX: Record<string, string[]> = {
	// credentials/
	'credentials/HostApi.credentials.ts': [
		'test/engine/credentials/test-answers.test.ts',
		'test/engine/credentials/addresses.test.ts',
		'test/unit/credentials/time-limits.test.ts',
	],
	'credentials/HostCloudApi.credentials.ts': [
		'test/engine/credentials/test-answers.test.ts',
		'test/engine/credentials/addresses.test.ts',
		'test/unit/credentials/time-limits.test.ts',
	],
	'credentials/HostCloudV2Api.credentials.ts': ['test/engine/credentials/v2-test-answers.test.ts'],
	'credentials/answer-rules.ts': ['test/engine/credentials/test-answers.test.ts'],
	'credentials/redirect-rules.ts': ['test/engine/credentials/test-redirects.test.ts'],

	// nodes/shared/
	'nodes/HostCloud/helpers/assets/asset-files.ts': ['test/engine/HostCloud/v2-files/assets-loopback.test.ts'],
	'nodes/HostCloud/helpers/finished-jobs/job-lookups.ts': [
		'test/engine/HostCloud/trigger/trigger.test.ts',
		'test/engine/HostCloud/trigger/hostile-records.test.ts',
	],
	'nodes/HostMedia/helpers/music/takes.ts': ['test/engine/HostMedia/music.test.ts', 'test/engine/HostMedia/music-hostile-stream.test.ts'],
	'nodes/shared/transport/request-limits.ts': ['test/unit/credentials/time-limits.test.ts', 'test/engine/HostCloud/slow-down.test.ts'],
	'nodes/shared/binary/result-files.ts': ['test/engine/shared/files-convention.test.ts', 'test/engine/HostMedia/result-names.test.ts'],
	'nodes/shared/items/fields.ts': [
		'test/engine/HostMedia/validation.test.ts',
		'test/engine/sweeps/bad-input-parameters.test.ts',
		'test/engine/sweeps/bad-input-defects.test.ts',
	],
	'nodes/shared/items/items.ts': ['test/engine/shared/continue-on-fail.test.ts', 'test/unit/shared/tools/tool-use.test.ts'],
	'nodes/shared/items/path-segment.ts': ['test/engine/shared/path-segments.test.ts'],
	'nodes/shared/tasks/trigger-memory.ts': [
		'test/engine/HostTaskTrigger/status-changes.test.ts',
		'test/engine/HostTaskTrigger/trigger.test.ts',
	],
	'nodes/shared/transport/answer-reading.ts': [
		'test/engine/shared/bounded-json.test.ts',
		'test/engine/shared/trickles-and-pass-through.test.ts',
		'test/engine/shared/answers-of-the-wrong-shape.test.ts',
	],
	'nodes/shared/transport/json-reader.ts': ['test/engine/shared/bounded-json.test.ts'],
	'nodes/shared/transport/request-errors.ts': [
		'test/engine/shared/service-words-and-addresses.test.ts',
		'test/engine/shared/secrets-hostile-service.test.ts',
		'test/unit/HostCloud/transport/refused-workflow.test.ts',
	],
	'nodes/shared/transport/retry.ts': [
		'test/unit/shared/transport/transport.test.ts',
		'test/engine/shared/stalled-answers.test.ts',
		'test/engine/shared/lost-answers.test.ts',
	],
	'nodes/shared/transport/transport.ts': ['test/engine/shared/stalled-answers.test.ts', 'test/engine/shared/lost-answers.test.ts'],
	'nodes/shared/waits/wait-settings.ts': ['test/engine/HostMedia/wait-options.test.ts', 'test/engine/HostCloud/wait.test.ts'],

	// Host Media
	'nodes/HostMedia/HostMedia.node.ts': ['test/engine/HostMedia/image.test.ts', 'test/engine/HostMedia/wait-options.test.ts'],
	'nodes/HostMedia/actions/image/enhanceSkin.operation.ts': [
		'test/engine/HostMedia/image.test.ts',
		'test/engine/HostMedia/validation.test.ts',
	],
	'nodes/HostMedia/actions/image/getTaskStatus.operation.ts': [
		'test/engine/HostMedia/image.test.ts',
		'test/engine/HostMedia/other-task-answers.test.ts',
	],
	'nodes/HostMedia/actions/image/relight.operation.ts': ['test/engine/HostMedia/image.test.ts', 'test/engine/HostMedia/validation.test.ts'],
	'nodes/HostMedia/actions/image/styleTransfer.operation.ts': [
		'test/engine/HostMedia/image.test.ts',
		'test/engine/HostMedia/validation.test.ts',
	],
	'nodes/HostMedia/actions/image/upscale.operation.ts': ['test/engine/HostMedia/image.test.ts', 'test/engine/HostMedia/validation.test.ts'],
	'nodes/HostMedia/actions/music/generate.operation.ts': [
		'test/engine/HostMedia/music.test.ts',
		'test/engine/HostMedia/music-hostile-stream.test.ts',
	],
	'nodes/HostMedia/actions/video/extend.operation.ts': ['test/engine/HostMedia/video.test.ts', 'test/engine/HostMedia/validation.test.ts'],
	'nodes/HostMedia/actions/video/generateFromFrames.operation.ts': [
		'test/engine/HostMedia/video.test.ts',
		'test/engine/HostMedia/validation.test.ts',
	],
	'nodes/HostMedia/actions/video/generateFromStartEndFrame.operation.ts': [
		'test/engine/HostMedia/video.test.ts',
		'test/engine/HostMedia/validation.test.ts',
	],
	'nodes/HostMedia/actions/video/getTaskStatus.operation.ts': [
		'test/engine/HostMedia/video.test.ts',
		'test/engine/HostMedia/other-task-answers.test.ts',
	],
	'nodes/HostMedia/helpers/music/errors.ts': ['test/engine/HostMedia/music-hostile-stream.test.ts'],
	'nodes/HostMedia/helpers/music/stream.ts': ['test/engine/HostMedia/music.test.ts', 'test/engine/HostMedia/music-hostile-stream.test.ts'],
	'nodes/HostMedia/helpers/tasks/status-answer.ts': [
		'test/engine/HostMedia/other-task-answers.test.ts',
		'test/engine/HostMedia/image.test.ts',
	],
	'nodes/HostMedia/helpers/tasks/task-item.ts': [
		'test/engine/HostMedia/image.test.ts',
		'test/engine/HostMedia/result-names.test.ts',
		'test/engine/HostMedia/tools.test.ts',
	],
	'nodes/HostMedia/helpers/tasks/task.ts': [
		'test/engine/HostMedia/image.test.ts',
		'test/engine/HostMedia/video.test.ts',
		'test/engine/HostMedia/wait.test.ts',
	],
	'nodes/HostMedia/helpers/tasks/wait-settings.ts': ['test/engine/HostMedia/wait-options.test.ts', 'test/engine/HostMedia/wait.test.ts'],
	'nodes/HostMedia/helpers/tasks/webhook-wait.ts': ['test/engine/HostMedia/webhook.test.ts', 'test/engine/HostMedia/webhook-trust.test.ts'],
	'nodes/HostMedia/transport/media-api.ts': [
		'test/engine/HostMedia/image.test.ts',
		'test/engine/HostMedia/video.test.ts',
		'test/engine/HostMedia/music.test.ts',
	],
	'nodes/HostMedia/transport/media-tasks.ts': ['test/engine/HostMedia/other-task-answers.test.ts', 'test/engine/HostMedia/video.test.ts'],
	'nodes/HostMedia/transport/spec.ts': ['test/engine/HostMedia/validation.test.ts'],

	// Host Registry
	'nodes/HostRegistry/HostRegistry.node.ts': ['test/engine/HostRegistry/registry.test.ts'],
	'nodes/HostRegistry/actions/node/claim.operation.ts': ['test/engine/HostRegistry/registry.test.ts'],
	'nodes/HostRegistry/actions/node/getAll.operation.ts': [
		'test/engine/HostRegistry/registry.test.ts',
		'test/engine/HostRegistry/hostile-listing.test.ts',
	],
	'nodes/HostRegistry/actions/node/update.operation.ts': [
		'test/engine/HostRegistry/registry.test.ts',
		'test/engine/HostRegistry/other-entity-answers.test.ts',
	],
	'nodes/HostRegistry/actions/nodeVersion/publish.operation.ts': [
		'test/engine/HostRegistry/publish.test.ts',
		'test/engine/HostRegistry/publish-memory.test.ts',
	],
	'nodes/HostRegistry/actions/nodeVersion/update.operation.ts': [
		'test/engine/HostRegistry/publish.test.ts',
		'test/engine/HostRegistry/other-entity-answers.test.ts',
	],
	'nodes/HostRegistry/actions/publisher/create.operation.ts': [
		'test/engine/HostRegistry/registry.test.ts',
		'test/engine/HostRegistry/other-entity-answers.test.ts',
	],
	'nodes/HostRegistry/actions/publisher/update.operation.ts': [
		'test/engine/HostRegistry/registry.test.ts',
		'test/engine/HostRegistry/other-entity-answers.test.ts',
	],
	'nodes/HostRegistry/helpers/credential-fields.ts': [
		'test/engine/HostRegistry/registry.test.ts',
		'test/engine/HostRegistry/publish.test.ts',
	],
	'nodes/HostRegistry/helpers/picker-position.ts': ['test/engine/HostRegistry/hostile-listing.test.ts'],
	'nodes/HostRegistry/methods/list-search.ts': [
		'test/engine/HostRegistry/hostile-listing.test.ts',
		'test/engine/HostRegistry/registry.test.ts',
	],
	'nodes/HostRegistry/transport/archive-upload.ts': [
		'test/engine/HostRegistry/publish.test.ts',
		'test/engine/HostRegistry/publish-memory.test.ts',
	],
	'nodes/HostRegistry/transport/entities.ts': ['test/engine/HostRegistry/other-entity-answers.test.ts'],

	// Host Task Trigger
	'nodes/HostTaskTrigger/HostTaskTrigger.node.ts': [
		'test/engine/HostTaskTrigger/trigger.test.ts',
		'test/engine/HostTaskTrigger/status-changes.test.ts',
		'test/engine/HostTaskTrigger/video-trigger-examples.test.ts',
	],

	// Host Cloud: the nodes, operations, methods and transport
	'nodes/HostCloud/HostCloud.node.ts': ['test/engine/HostCloud/operations.test.ts', 'test/unit/shared/tools/tool-use.test.ts'],
	'nodes/HostCloud/HostCloudTrigger.node.ts': ['test/engine/HostCloud/trigger/trigger.test.ts'],
	'nodes/HostCloud/actions/file/downloadOutput.operation.ts': [
		'test/engine/HostCloud/operations.test.ts',
		'test/engine/HostCloud/download-retry.test.ts',
	],
	'nodes/HostCloud/actions/file/getOutputUrl.operation.ts': ['test/engine/HostCloud/operations.test.ts'],
	'nodes/HostCloud/actions/file/uploadImage.operation.ts': ['test/engine/HostCloud/operations.test.ts'],
	'nodes/HostCloud/actions/file/uploadMask.operation.ts': ['test/engine/HostCloud/operations.test.ts'],
	'nodes/HostCloud/actions/queue/cancelExecutionJobs.operation.ts': [
		'test/engine/HostCloud/execution-orphans.test.ts',
		'test/engine/HostCloud/execution-orphans-hostile.test.ts',
	],
	'nodes/HostCloud/actions/queue/cancelJobs.operation.ts': [
		'test/engine/HostCloud/operations.test.ts',
		'test/engine/HostCloud/cancel-answers.test.ts',
	],
	'nodes/HostCloud/actions/queue/get.operation.ts': [
		'test/engine/HostCloud/operations.test.ts',
		'test/engine/HostCloud/queue-get-entries.test.ts',
	],
	'nodes/HostCloud/actions/queue/interrupt.operation.ts': [
		'test/engine/HostCloud/operations.test.ts',
		'test/engine/HostCloud/tools.test.ts',
	],
	'nodes/HostCloud/actions/server/deleteHistory.operation.ts': ['test/engine/HostCloud/trigger/hostile-self-hosted.test.ts'],
	'nodes/HostCloud/actions/server/freeMemory.operation.ts': ['test/engine/HostCloud/server-controls.test.ts'],
	'nodes/HostCloud/actions/server/getHistory.operation.ts': ['test/engine/HostCloud/answers-about-another-job.test.ts'],
	'nodes/HostCloud/actions/server/getSystemStats.operation.ts': ['test/engine/HostCloud/server-controls.test.ts'],
	'nodes/HostCloud/actions/server/listModels.operation.ts': [
		'test/engine/HostCloud/server-controls.test.ts',
		'test/engine/HostCloud/list-models-bounds.test.ts',
	],
	'nodes/HostCloud/actions/system/getNodeDefinitions.operation.ts': [
		'test/engine/HostCloud/silent-service.test.ts',
		'test/engine/shared/bounded-json.test.ts',
	],
	'nodes/HostCloud/actions/workflow/convert.operation.ts': ['test/engine/HostCloud/ui-format.test.ts'],
	'nodes/HostCloud/actions/workflow/execute.operation.ts': [
		'test/engine/HostCloud/execute.test.ts',
		'test/engine/HostCloud/execute-places.test.ts',
		'test/engine/HostCloud/inputs.test.ts',
	],
	'nodes/HostCloud/actions/workflow/getJobWorkflow.operation.ts': [
		'test/engine/HostCloud/v2/get-job-workflow.test.ts',
		'test/engine/HostCloud/v2/error-codes.test.ts',
	],
	'nodes/HostCloud/actions/workflow/getStatus.operation.ts': [
		'test/engine/HostCloud/operations.test.ts',
		'test/engine/HostCloud/answers-about-another-job.test.ts',
	],
	'nodes/HostCloud/actions/workflow/submit.operation.ts': [
		'test/engine/HostCloud/operations.test.ts',
		'test/engine/HostCloud/lost-submit.test.ts',
	],
	'nodes/HostCloud/actions/workflow/waitForCompletion.operation.ts': [
		'test/engine/HostCloud/operations.test.ts',
		'test/engine/HostCloud/wait-for-completion-timeout.test.ts',
	],
	'nodes/HostCloud/methods/load-options.ts': ['test/engine/HostCloud/input-choices.test.ts'],
	'nodes/HostCloud/transport/cloud-api.ts': ['test/engine/HostCloud/execute.test.ts', 'test/engine/HostCloud/operations.test.ts'],
	'nodes/HostCloud/transport/v2-api.ts': ['test/engine/HostCloud/v2/jobs-scripted.test.ts'],
	'nodes/HostCloud/transport/v2-service.ts': ['test/engine/HostCloud/v2/jobs-scripted.test.ts'],
	'nodes/HostCloud/helpers/v2-jobs/follow-job.ts': ['test/engine/HostCloud/v2/jobs-scripted.test.ts'],
	'nodes/HostCloud/helpers/v2-jobs/job-item.ts': ['test/engine/HostCloud/v2/jobs-scripted.test.ts'],
	'nodes/HostCloud/helpers/v2-jobs/run-v2-jobs.ts': ['test/engine/HostCloud/v2/jobs-scripted.test.ts'],
	'nodes/HostCloud/helpers/v2-jobs/submit-job.ts': ['test/engine/HostCloud/v2/jobs-scripted.test.ts'],
	'nodes/HostCloud/transport/cloud-service.ts': [
		'test/unit/HostCloud/transport/refused-workflow.test.ts',
		'test/engine/HostCloud/self-hosted.test.ts',
	],

	// Host Cloud's helpers
	'nodes/HostCloud/helpers/files/file-fields.ts': [
		'test/engine/HostCloud/operations.test.ts',
		'test/engine/HostCloud/download-retry.test.ts',
	],
	'nodes/HostCloud/helpers/files/uploads.ts': ['test/engine/HostCloud/operations.test.ts', 'test/engine/HostCloud/inputs.test.ts'],
	'nodes/HostCloud/helpers/finished-jobs/cloud-listener.ts': [
		'test/engine/HostCloud/trigger/trigger.test.ts',
		'test/engine/HostCloud/trigger/hostile-socket.test.ts',
		'test/engine/HostCloud/trigger/hostile-liveness.test.ts',
	],
	'nodes/HostCloud/helpers/finished-jobs/ended-job.ts': [
		'test/engine/HostCloud/trigger/trigger.test.ts',
		'test/engine/HostCloud/trigger/hostile-records.test.ts',
	],
	'nodes/HostCloud/helpers/finished-jobs/heard-jobs.ts': [
		'test/engine/HostCloud/trigger/hostile-size.test.ts',
		'test/engine/HostCloud/trigger/hostile-duplicate.test.ts',
	],
	'nodes/HostCloud/helpers/finished-jobs/history-poller.ts': [
		'test/engine/HostCloud/trigger/hostile-self-hosted.test.ts',
		'test/engine/HostCloud/trigger/trigger.test.ts',
	],
	'nodes/HostCloud/helpers/finished-jobs/listen.ts': ['test/engine/HostCloud/trigger/trigger.test.ts'],
	'nodes/HostCloud/helpers/finished-jobs/memory.ts': [
		'test/engine/HostCloud/trigger/trigger.test.ts',
		'test/engine/HostCloud/trigger/hostile-duplicate.test.ts',
	],
	'nodes/HostCloud/helpers/finished-jobs/settings.ts': ['test/engine/HostCloud/trigger/trigger.test.ts'],
	'nodes/HostCloud/helpers/graph/node-definitions.ts': [
		'test/engine/HostCloud/execute.test.ts',
		'test/engine/HostCloud/silent-service.test.ts',
	],
	'nodes/HostCloud/helpers/submit/prepare-workflow.ts': [
		'test/engine/HostCloud/execute.test.ts',
		'test/engine/HostCloud/inputs.test.ts',
		'test/engine/HostCloud/ui-format.test.ts',
	],
	'nodes/HostCloud/helpers/submit/submit-workflow.ts': [
		'test/engine/HostCloud/execute.test.ts',
		'test/engine/HostCloud/lost-submit.test.ts',
		'test/engine/HostCloud/duplicate-prompt-id.test.ts',
	],
	'nodes/HostCloud/helpers/graph/node-choices.ts': ['test/unit/HostCloud/methods/load-options.test.ts'],
	'nodes/HostCloud/helpers/job-reports/errors.ts': ['test/engine/HostCloud/execute.test.ts', 'test/engine/HostCloud/wait.test.ts'],
	'nodes/HostCloud/helpers/job-reports/executed-outputs.ts': [
		'test/engine/HostCloud/shared-socket.test.ts',
		'test/engine/HostCloud/execute.test.ts',
	],
	'nodes/HostCloud/helpers/job-reports/files-item.ts': [
		'test/engine/HostCloud/execute.test.ts',
		'test/engine/HostCloud/trigger/trigger.test.ts',
	],
	'nodes/HostCloud/helpers/progress-socket/kept-messages.ts': ['test/engine/HostCloud/shared-socket.test.ts'],
	'nodes/HostCloud/helpers/progress-socket/open-socket.ts': [
		'test/unit/HostCloud/helpers/progress-socket/progress-socket.test.ts',
		'test/engine/HostCloud/shared-socket.test.ts',
	],
	'nodes/HostCloud/helpers/jobs/job-tracker.ts': [
		'test/engine/HostCloud/wait.test.ts',
		'test/engine/HostCloud/execute-places.test.ts',
		'test/engine/HostCloud/execute-seam.test.ts',
	],
	'nodes/HostCloud/helpers/jobs/job-item.ts': ['test/engine/HostCloud/execute-places.test.ts', 'test/engine/HostCloud/execute.test.ts'],
	'nodes/HostCloud/helpers/progress-socket/progress-socket.ts': [
		'test/engine/HostCloud/shared-socket.test.ts',
		'test/engine/HostCloud/wait.test.ts',
	],
	'nodes/HostCloud/helpers/job-reports/prompt-id.ts': [
		'test/engine/HostCloud/operations.test.ts',
		'test/engine/HostCloud/duplicate-prompt-id.test.ts',
	],
	'nodes/HostCloud/helpers/jobs/recovery.ts': [
		'test/engine/HostCloud/wait.test.ts',
		'test/engine/HostCloud/wait-for-completion-timeout.test.ts',
		'test/engine/HostCloud/lost-submit.test.ts',
	],
	'nodes/HostCloud/helpers/jobs/run-jobs.ts': ['test/engine/HostCloud/execute.test.ts', 'test/engine/HostCloud/wait.test.ts'],
	'nodes/HostCloud/helpers/progress-socket/runtime-websocket.ts': [
		'test/engine/HostCloud/shared-socket.test.ts',
		'test/engine/HostCloud/wait.test.ts',
	],
	'nodes/HostCloud/helpers/jobs/tracked-job.ts': ['test/engine/HostCloud/wait.test.ts', 'test/engine/HostCloud/shared-socket.test.ts'],
	'nodes/HostCloud/helpers/jobs/wait-settings.ts': ['test/engine/HostCloud/wait.test.ts', 'test/engine/HostCloud/tools.test.ts'],
	'nodes/HostCloud/helpers/jobs/watcher.ts': ['test/engine/HostCloud/wait.test.ts', 'test/engine/HostCloud/shared-socket.test.ts'],
	'nodes/HostCloud/helpers/ownership/find-by-request.ts': [
		'test/engine/HostCloud/lost-submit.test.ts',
		'test/engine/HostCloud/lost-submit-retry.test.ts',
	],
	'nodes/HostCloud/helpers/ownership/item-submits.ts': [
		'test/engine/HostCloud/lost-submit-retry.test.ts',
		'test/engine/HostCloud/stop-lost-submit.test.ts',
	],
	'nodes/HostCloud/helpers/ownership/lost-submit.ts': [
		'test/engine/HostCloud/lost-submit.test.ts',
		'test/engine/HostCloud/stop-lost-submit.test.ts',
	],
	'nodes/HostCloud/helpers/server/controls.ts': [
		'test/engine/HostCloud/server-controls.test.ts',
		'test/engine/HostCloud/list-models-bounds.test.ts',
	],
	'nodes/HostCloud/helpers/server/history.ts': [
		'test/engine/HostCloud/answers-about-another-job.test.ts',
		'test/engine/HostCloud/trigger/hostile-self-hosted.test.ts',
	],
	'nodes/HostCloud/helpers/server/model-folders.ts': ['test/engine/HostCloud/input-choices.test.ts'],
	'nodes/HostCloud/helpers/ui-format/convert.ts': [
		'test/unit/HostCloud/helpers/ui-format/workflow-rules.test.ts',
		'test/unit/HostCloud/helpers/ui-format/editor-rules.test.ts',
		'test/engine/HostCloud/ui-format.test.ts',
	],
	'nodes/HostCloud/helpers/ui-format/graph.ts': [
		'test/unit/HostCloud/helpers/ui-format/workflow-rules.test.ts',
		'test/unit/HostCloud/helpers/ui-format/editor-rules.test.ts',
	],
	'nodes/HostCloud/helpers/ui-format/group-nodes.ts': ['test/unit/HostCloud/helpers/ui-format/workflow-rules.test.ts'],
	'nodes/HostCloud/helpers/ui-format/links.ts': [
		'test/unit/HostCloud/helpers/ui-format/workflow-rules.test.ts',
		'test/unit/HostCloud/helpers/ui-format/editor-rules.test.ts',
	],
	'nodes/HostCloud/helpers/ui-format/notes.ts': [
		'test/unit/HostCloud/helpers/ui-format/workflow-rules.test.ts',
		'test/unit/HostCloud/helpers/ui-format/budgets.test.ts',
	],
	'nodes/HostCloud/helpers/ui-format/proxy-widgets.ts': [
		'test/unit/HostCloud/helpers/ui-format/editor-rules.test.ts',
		'test/unit/HostCloud/helpers/ui-format/host-values.test.ts',
	],
	'nodes/HostCloud/helpers/ui-format/subgraph-hosts.ts': ['test/unit/HostCloud/helpers/ui-format/host-values.test.ts'],
	'nodes/HostCloud/helpers/ui-format/widgets.ts': [
		'test/unit/HostCloud/helpers/ui-format/workflow-rules.test.ts',
		'test/unit/HostCloud/helpers/ui-format/editor-rules.test.ts',
	],
};
