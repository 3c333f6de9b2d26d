/** The one vPIC query the decoder asks itself (corgi's pattern matcher asks the rest): the makes vPIC registers for a WMI. */
import type { VpicQueryAdapter } from '../../identity/vpic-database.js';

export async function makesOfWmi(database: VpicQueryAdapter, wmi: string): Promise<string[]> {
  const [result] = await database.exec('select m.Name from Wmi w join Wmi_Make wm on wm.WmiId = w.Id join Make m on m.Id = wm.MakeId where w.Wmi = ?', [wmi]);
  return (result?.values ?? []).map((row) => String(row[0]));
}
