/** The service's texts as the nodes keep them: clipped with a marker. */
import { clipText } from '../../../../nodes/shared/transport/service-values';

describe('clipText', () => {
	it('keeps short texts whole and clips long ones with a marker, never inside a surrogate pair', () => {
		expect(clipText('short')).toBe('short');
		expect(clipText('x'.repeat(600), 500)).toBe(`${'x'.repeat(500)}… [cut: 600 characters in all]`);
		expect(clipText('x'.repeat(1200))).toBe(`${'x'.repeat(1000)}… [cut: 1200 characters in all]`);
		expect(clipText(`${'x'.repeat(4)}😀😀`, 5)).toBe('xxxx… [cut: 8 characters in all]');
	});
});
