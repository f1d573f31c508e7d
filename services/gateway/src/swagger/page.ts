/**
 * `GET /api/swagger`: a small, self-contained documentation page. Its inline script fetches the generated
 * `/swagger.v1.json` (relative, so a sub-path deployment works) and lists the operations by tag with their
 * parameters and responses. Nothing is loaded from anywhere else, and the Content-Security-Policy says so.
 */
import { createHash } from 'node:crypto';

const STYLE = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 70rem; padding: 1rem 2rem; color: #222; }
h1 { margin-bottom: 0; } .version { color: #666; margin-top: .2rem; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: .2rem; margin-top: 2rem; text-transform: capitalize; }
details { border: 1px solid #e3e3e3; border-radius: 4px; margin: .4rem 0; padding: .3rem .6rem; }
summary { cursor: pointer; } .method { display: inline-block; min-width: 4.5rem; font-weight: 700; text-transform: uppercase; }
.get { color: #2a7ab0; } .post { color: #2f9e44; } .put, .patch { color: #c77c02; } .delete { color: #c92a2a; }
code { font-family: ui-monospace, monospace; } table { border-collapse: collapse; margin: .4rem 0; }
td, th { border: 1px solid #e3e3e3; padding: .2rem .5rem; text-align: left; vertical-align: top; }
.muted { color: #666; }
`;

const SCRIPT = `
(function () {
  var root = document.getElementById('operations');
  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }
  function typeOf(p) {
    if (p.schema && p.schema.$ref) return p.schema.$ref.replace('#/definitions/', '');
    if (p.schema && p.schema.type === 'array' && p.schema.items && p.schema.items.$ref) return p.schema.items.$ref.replace('#/definitions/', '') + '[]';
    return (p.type || (p.schema && p.schema.type) || '') + (p.format ? ' (' + p.format + ')' : '');
  }
  fetch('../swagger.v1.json').then(function (r) { return r.json(); }).then(function (doc) {
    document.getElementById('version').textContent = doc.info.title + ' ' + doc.info.version + ' — base path ' + doc.basePath;
    var byTag = {};
    Object.keys(doc.paths).forEach(function (path) {
      Object.keys(doc.paths[path]).forEach(function (method) {
        var op = doc.paths[path][method];
        (op.tags || ['other']).forEach(function (tag) { (byTag[tag] = byTag[tag] || []).push({ path: path, method: method, op: op }); });
      });
    });
    Object.keys(byTag).sort().forEach(function (tag) {
      root.appendChild(el('h2', tag));
      byTag[tag].forEach(function (entry) {
        var details = el('details');
        var summary = el('summary');
        summary.appendChild(el('span', entry.method, 'method ' + entry.method));
        summary.appendChild(el('code', doc.basePath + entry.path));
        summary.appendChild(el('span', ' — ' + (entry.op.summary || ''), 'muted'));
        details.appendChild(summary);
        details.appendChild(el('p', 'operationId: ' + entry.op.operationId, 'muted'));
        var params = entry.op.parameters || [];
        if (params.length > 0) {
          var table = el('table');
          var head = el('tr');
          ['name', 'in', 'type', 'required', 'description'].forEach(function (h) { head.appendChild(el('th', h)); });
          table.appendChild(head);
          params.forEach(function (p) {
            var row = el('tr');
            [p.name, p.in, typeOf(p), p.required ? 'yes' : '', p.description || ''].forEach(function (v) { row.appendChild(el('td', v)); });
            table.appendChild(row);
          });
          details.appendChild(table);
        }
        var responses = Object.keys(entry.op.responses || {}).map(function (code) {
          var r = entry.op.responses[code];
          return code + (r && r.$ref ? ' ' + r.$ref.replace('#/responses/', '') : '');
        });
        details.appendChild(el('p', 'responses: ' + responses.join(', '), 'muted'));
        root.appendChild(details);
      });
    });
  }).catch(function (error) {
    root.appendChild(el('p', 'Could not load the API description: ' + error));
  });
})();
`;

const hash = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

export const SWAGGER_PAGE_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cairn API</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Cairn API</h1>
<p class="version" id="version">Loading the API description…</p>
<p>The machine-readable description is at <a href="../swagger.v1.json">/swagger.v1.json</a> (Swagger 2.0).</p>
<div id="operations"></div>
<script>${SCRIPT}</script>
</body>
</html>
`;

/** Only the page's own script and style run, and the only request it makes is to this origin. */
export const SWAGGER_PAGE_CSP = `default-src 'none'; connect-src 'self'; script-src ${hash(SCRIPT)}; style-src ${hash(STYLE)}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
