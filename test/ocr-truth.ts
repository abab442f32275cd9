// What ../shared/corpora/images/tesseract.js/testocr.png says: tesseract.js's own ground truth for it.
export const TESTOCR_TEXT =
  'This is a lot of 12 point text to test the ocr code and see if it works on all types of file format. ' +
  'The quick brown dog jumped over the lazy fox. The quick brown dog jumped over the lazy fox. ' +
  'The quick brown dog jumped over the lazy fox. The quick brown dog jumped over the lazy fox.';
