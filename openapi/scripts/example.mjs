// example.mjs - print a recorded JSON response as a YAML block for openapi.yaml.
//
// Examples in the spec are real responses: save one (`curl -s URL > r.json`)
// and paste the output under an example's `value:`. Short scalar arrays and
// small objects are written inline to keep the spec readable.
//
//   node scripts/example.mjs r.json [INDENT]
import fs from 'node:fs';
import YAML from 'yaml';

const [file, indent = '0'] = process.argv.slice(2);
if (!file || !/^[0-9]+$/.test(indent)) {
  console.error('usage: example.mjs FILE.json [INDENT]');
  process.exit(2);
}
const doc = new YAML.Document(JSON.parse(fs.readFileSync(file, 'utf8')));
YAML.visit(doc, {
  Seq(_, n) {
    if (n.items.every((i) => YAML.isScalar(i))) n.flow = true;
  },
  Map(_, n) {
    if (n.items.every((p) => YAML.isScalar(p.value)) && JSON.stringify(n.toJSON()).length < 70)
      n.flow = true;
  },
});
const pad = ' '.repeat(Number(indent));
const text = doc.toString({ lineWidth: 0, flowCollectionPadding: false }).replace(/\n$/, '');
process.stdout.write(`${text.split('\n').map((l) => pad + l).join('\n')}\n`);
