/** structuredCode reads the key grammars of the three adapters; anything else is null, never guessed. */
import { describe, expect, it } from '@jest/globals';
import { structuredCode } from './fault-codes.js';

describe('structuredCode', () => {
  it('reads Samsara J1939 and OBD-II keys, with the transmitter as source address', () => {
    expect(structuredCode('samsara', 'j1939:0:spn110:fmi0')).toEqual({ standard: 'j1939', spn: 110, fmi: 0, sourceAddress: 0 });
    expect(structuredCode('samsara', 'j1939:na:spn5246:fmi31')).toEqual({ standard: 'j1939', spn: 5246, fmi: 31, sourceAddress: null });
    expect(structuredCode('samsara', 'obdii:7:P0420:confirmed')).toEqual({ standard: 'obdii', dtc: 'P0420', status: 'confirmed' });
    expect(structuredCode('samsara', 'oem:ENG-42')).toBeNull();
  });

  it('adds the occurrence count when one was reported, to J1939 and Geotab codes only', () => {
    expect(structuredCode('samsara', 'j1939:0:spn110:fmi0', 3)).toEqual({ standard: 'j1939', spn: 110, fmi: 0, sourceAddress: 0, occurrenceCount: 3 });
    expect(structuredCode('motive', 'j1939:spn110:fmi1', 0)).toEqual({ standard: 'j1939', spn: 110, fmi: 1, sourceAddress: null, occurrenceCount: 0 });
    expect(structuredCode('geotab', 'b1|aXyz|aFm1|aCtl', 7)).toEqual({ standard: 'geotab', diagnosticId: 'aXyz', failureModeId: 'aFm1', controllerId: 'aCtl', occurrenceCount: 7 });
    expect(structuredCode('samsara', 'obdii:7:P0420:confirmed', 3)).toEqual({ standard: 'obdii', dtc: 'P0420', status: 'confirmed' });
    expect(structuredCode('samsara', 'j1939:0:spn110:fmi0', null)).toEqual({ standard: 'j1939', spn: 110, fmi: 0, sourceAddress: 0 });
  });

  it('reads Motive J1939 and OBD-II keys; other networks have no structure', () => {
    expect(structuredCode('motive', 'j1939:spn110:fmi1')).toEqual({ standard: 'j1939', spn: 110, fmi: 1, sourceAddress: null });
    expect(structuredCode('motive', 'obdii:P0171')).toEqual({ standard: 'obdii', dtc: 'P0171', status: null });
    expect(structuredCode('motive', 'j1708:123:fmi4')).toBeNull();
    expect(structuredCode('motive', 'j1939:spnX:fmi1')).toBeNull();
  });

  it('reads the Geotab diagnostic, failure mode and controller ids (the placeholders are null)', () => {
    expect(structuredCode('geotab', 'b1|DiagnosticEngineCoolantTemperatureId|NoFailureModeId|ControllerNoneId')).toEqual({ standard: 'geotab', diagnosticId: 'DiagnosticEngineCoolantTemperatureId', failureModeId: null, controllerId: null });
    expect(structuredCode('geotab', 'b1|aXyz|aFm1|aCtl')).toEqual({ standard: 'geotab', diagnosticId: 'aXyz', failureModeId: 'aFm1', controllerId: 'aCtl' });
    expect(structuredCode('geotab', 'b1|aXyz')).toBeNull();
  });
});
