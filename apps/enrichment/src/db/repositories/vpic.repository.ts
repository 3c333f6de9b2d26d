/**
 * The vPIC SQL of ours (corgi's pattern matcher asks the rest): the indexes added at unpacking, the
 * makes vPIC registers for a WMI, the GVWR classes its schemas state.
 */
import type { VpicQueryAdapter } from '../../identity/vpic-database.js';

/**
 * Indexes the packaged file lacks for corgi's queries (they filter Pattern and Wmi_VinSchema by
 * schema id; the file only indexes Pattern by Keys): added once at unpacking (~0.7 s, +11 MB), they
 * make a decode of a new model ~3-5x faster and shorten the longest single query from ~110 to ~50 ms.
 * A change here bumps INDEX_VERSION, so an older unpacked copy is not reused.
 */
export const INDEX_VERSION = 'ix1';
export const INDEXES = `
create index if not exists sy_pattern_schema on Pattern (VinSchemaId, ElementId);
create index if not exists sy_wmi_vinschema_schema on Wmi_VinSchema (VinSchemaId);
create index if not exists sy_wmi_vinschema_wmi on Wmi_VinSchema (WmiId);
analyze;`;

export async function makesOfWmi(database: VpicQueryAdapter, wmi: string): Promise<string[]> {
  const [result] = await database.exec('select m.Name from Wmi w join Wmi_Make wm on wm.WmiId = w.Id join Make m on m.Id = wm.MakeId where w.Wmi = ?', [wmi]);
  return (result?.values ?? []).map((row) => String(row[0]));
}

/**
 * The GVWR names ("Class 2E: 6,001 - 7,000 lb …") the schemas of a WMI state for any of its
 * vehicles, distinct; empty when vPIC records none (3TM: classes 1-2 only; 1FT: 1 to 7; JAL: 3 to 8).
 */
export async function gvwrOfWmi(database: VpicQueryAdapter, wmi: string): Promise<string[]> {
  const [result] = await database.exec(
    `select distinct g.Name from Wmi w
       join Wmi_VinSchema ws on ws.WmiId = w.Id
       join Pattern p on p.VinSchemaId = ws.VinSchemaId
       join Element e on e.Id = p.ElementId and e.Name = 'Gross Vehicle Weight Rating From'
       join GrossVehicleWeightRating g on g.Id = cast(p.AttributeId as integer)
     where w.Wmi = ?`,
    [wmi],
  );
  return (result?.values ?? []).map((row) => String(row[0]));
}
