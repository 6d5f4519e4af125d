// dcmjs ships no type declarations: this declares only the part src/images/ uses (DicomMessage.readFile, the VR
// table and the dictionary the limits check reads elements with, and its log).
declare module 'dcmjs' {
  /** One element of a dcmjs data set: its VR and its values (numbers, strings, ArrayBuffers or byte views, or nested items). */
  interface DcmjsElement {
    vr: string;
    Value?: unknown[];
  }
  interface DcmjsDataSet {
    meta: Record<string, DcmjsElement>;
    dict: Record<string, DcmjsElement>;
  }
  interface DcmjsLogger {
    setLevel(level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'silent'): void;
    getLogger(name: string): DcmjsLogger;
  }
  const dcmjs: {
    data: {
      DicomMessage: {
        readFile(buffer: ArrayBuffer, options?: { ignoreErrors?: boolean; untilTag?: string | null; includeUntilTagValue?: boolean; forceStoreRaw?: boolean; noCopy?: boolean }): DcmjsDataSet;
      };
      ValueRepresentation: {
        /**
         * The VR dcmjs reads a two-letter code as (UN for a code it does not know): isBinary() for the number VRs
         * (FL, FD, SL, SS, UL, US, AT, UV), read maxLength bytes per number.
         */
        createByTypeString(type: string | undefined): { type: string; isLength32(): boolean; isBinary(): boolean; maxLength: number | null };
      };
      DicomMetaDictionary: {
        /** Keyed "(GGGG,EEEE)" in upper-case hex. */
        dictionary: Record<string, { vr?: string } | undefined>;
      };
    };
    log: DcmjsLogger;
  };
  export default dcmjs;
  export type { DcmjsDataSet, DcmjsElement };
}
