// Scripts and the tesseract language data that reads each: what a page that OCR could not read is
// told to need. Apart from ocr.ts so the message is written without loading tesseract.

export interface ScriptGuess {
  script: string;
  language: string | null;
  sure: boolean;
}

/** The language data of the scripts most often met, for a page whose script tesseract cannot tell. */
export const COMMON_SCRIPT_LANGUAGES = ['chi_sim', 'jpn', 'kor', 'rus', 'ara', 'hin', 'ell', 'heb', 'tha'];

/** OSD's script confidence from which its guess is worth telling the user. */
export const SCRIPT_SURE = 20;

/** tesseract's script names → the language data that reads them (the most common language of each). */
export const SCRIPT_LANGUAGE: Record<string, string> = {
  Han: 'chi_sim',
  Japanese: 'jpn',
  Hangul: 'kor',
  Cyrillic: 'rus',
  Arabic: 'ara',
  Hebrew: 'heb',
  Greek: 'ell',
  Devanagari: 'hin',
  Thai: 'tha',
  Bengali: 'ben',
  Tamil: 'tam',
  Armenian: 'hye',
  Georgian: 'kat',
  Latin: 'eng',
};
