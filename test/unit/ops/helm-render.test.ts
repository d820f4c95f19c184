import t from 'tap'
import { Evaluator } from '../../helpers/go-template/evaluate.js'
import { parseTemplate } from '../../helpers/go-template/parse.js'
import { mergeValues } from '../../helpers/helm-render.js'

/** Renders one template source (its defines included) with `data` as `.` and `$`. */
function run(source: string, data: unknown = {}): string {
  const parsed = parseTemplate(source, 'test')
  return new Evaluator(parsed.defines).run(parsed.body, data)
}

void t.test('text, actions and whitespace trimming', async (t) => {
  t.equal(run('a {{ .x }} b', { x: 'X' }), 'a X b')
  t.equal(run('a\n  {{- .x }}\nb', { x: 'X' }), 'aX\nb')
  t.equal(run('a {{ .x -}}\n\n  b', { x: 'X' }), 'a Xb')
  t.equal(run('a{{/* a comment */}}b'), 'ab')
  t.equal(run('a\n{{- /* trimmed */ -}}\nb'), 'ab')
  t.equal(run('{{ "}}" }}'), '}}', 'braces inside strings')
  t.equal(run('{{ .missing }}'), '<no value>', 'Helm then removes <no value>')
})

void t.test('if / else if / else, with, range, variables', async (t) => {
  const branch = '{{ if .a }}A{{ else if .b }}B{{ else }}C{{ end }}'
  t.equal(run(branch, { a: 1, b: 1 }), 'A')
  t.equal(run(branch, { a: 0, b: 'x' }), 'B')
  t.equal(run(branch, { a: [], b: {} }), 'C', 'empty list and map are false')
  t.equal(run('{{ with .m }}{{ .k }}{{ else }}none{{ end }}', { m: { k: 'v' } }), 'v')
  t.equal(run('{{ with .m }}{{ .k }}{{ else }}none{{ end }}', { m: {} }), 'none')
  t.equal(run('{{ range .l }}[{{ . }}]{{ end }}', { l: ['a', 'b'] }), '[a][b]')
  t.equal(
    run('{{ range $k, $v := .m }}{{ $k }}={{ $v }};{{ end }}', { m: { b: 2, a: 1 } }),
    'a=1;b=2;',
    'sorted keys',
  )
  t.equal(run('{{ range .l }}x{{ else }}empty{{ end }}', { l: [] }), 'empty')
  t.equal(run('{{ range .l }}{{ $.p }}{{ . }}{{ end }}', { l: [1], p: '>' }), '>1', '$ is the root')
  t.equal(
    run('{{ $x := "a" }}{{ if true }}{{ $x = "b" }}{{ end }}{{ $x }}'),
    'b',
    'assignment reaches outwards',
  )
})

void t.test('define, include, template', async (t) => {
  const source =
    '{{ define "n" }}<{{ .v }}>{{ end }}{{ include "n" . | printf "%s!" }}{{ template "n" .inner }}'
  t.equal(run(source, { v: 1, inner: { v: 2 } }), '<1>!<2>')
  t.throws(() => run('{{ include "nope" . }}'), /no template "nope"/)
})

void t.test('Helm semantics the chart relies on', async (t) => {
  t.throws(
    () => run('{{ .a.b }}', {}),
    /nil pointer evaluating interface \{\}\.b/,
    'field of a missing map',
  )
  t.equal(
    run('{{ .big }} {{ .small }} {{ .port }}', { big: 1048576, small: 0.00001, port: 8080 }),
    '1.048576e+06 1e-05 8080',
    'values print as float64',
  )
  t.equal(run('{{ int .big }} {{ .big | int | quote }}', { big: 1048576 }), '1048576 "1048576"')
  t.throws(
    () => run('{{ gt .n 1 }}', { n: 2 }),
    /incompatible types for comparison/,
    'float vs int',
  )
  t.equal(
    run('{{ gt (int .n) 1 }} {{ eq .s "x" }} {{ eq .nil "x" }} {{ ne .s "y" }}', { n: 2, s: 'x' }),
    'true true false true',
  )
  t.equal(
    run('{{ printf "%d" .n }}', { n: 3 }),
    '%!d(float64=3)',
    'printf %d of a value is wrong in Helm too',
  )
  t.equal(
    run('{{ and .a (fail "not evaluated") }}{{ or .b "fallback" }}', { a: false }),
    'falsefallback',
    'and/or short-circuit',
  )
  t.equal(
    run('{{ default "d" .x }}|{{ default "d" .y }}|{{ default 3 .z }}', {
      x: '',
      y: 'v',
      z: false,
    }),
    'd|v|3',
  )
  t.throws(() => run('{{ required "need x" .x }}'), /need x/)
  t.throws(() => run('{{ fail "stop" }}'), /stop/)
  t.throws(
    () => run('{{ lookup "v1" "Secret" "" "" }}'),
    /function "lookup" not defined/,
    'only the subset exists',
  )
})

void t.test('functions', async (t) => {
  const data = { m: { b: [1, 2], a: 'x' }, s: 'abc-', n: null }
  t.equal(run('{{ toYaml .m }}', data), 'a: x\nb:\n- 1\n- 2')
  t.equal(run('k:{{ toYaml .m | nindent 2 }}', data), 'k:\n  a: x\n  b:\n  - 1\n  - 2')
  t.equal(run('{{ toYaml .m | indent 2 }}', data), '  a: x\n  b:\n  - 1\n  - 2')
  t.equal(run('{{ toJson .m }}', data), '{"a":"x","b":[1,2]}')
  t.equal(
    run('{{ .s | trunc 2 }}|{{ .s | trimSuffix "-" }}|{{ quote .s .n }}', data),
    'ab|abc|"abc-"',
  )
  t.equal(
    run('{{ "x" | b64enc }} {{ "x" | sha256sum }}'),
    'eA== 2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881',
  )
  t.equal(
    run('{{ empty .n }} {{ not .s }} {{ hasKey .m "a" }} {{ contains "bc" .s }}', data),
    'true false true true',
  )
  t.equal(run('{{ printf "%s-%s" "a" "b" }} {{ print "a" 1 2 }}'), 'a-b a1 2')
  t.equal(
    run('{{ hasPrefix "127." .h }} {{ hasPrefix "127." .o }}', { h: '127.0.0.1', o: '0.0.0.0' }),
    'true false',
  )
  t.throws(() => run('{{ hasPrefix "1" .n }}', { n: 1 }), /hasPrefix: expected a string/)
  t.equal(
    run('{{ add1 .p }} {{ sub .p 1 }} {{ lt (add1 (int .p)) 8081 }} {{ gt (sub .p 1) 8079 }}', {
      p: 8080,
    }),
    '8081 8079 false false',
    'int64 results, comparable with template integers',
  )
})

void t.test('parse errors name the template and line', async (t) => {
  t.throws(() => parseTemplate('a\n{{ if .x }}', 't.yaml'), /missing \{\{end\}\}/)
  t.throws(() => parseTemplate('{{ end }}', 't.yaml'), /t\.yaml:1: unexpected \{\{end\}\}/)
  t.throws(() => parseTemplate('x\n{{ .a ', 't.yaml'), /t\.yaml:2: unclosed action/)
})

void t.test('values merge like Helm: maps deep, lists replaced, null deletes', async (t) => {
  t.same(
    mergeValues({ a: { b: 1, c: [1, 2], d: 'x' }, e: 1 }, { a: { b: 2, c: [3], d: null }, f: 2 }),
    { a: { b: 2, c: [3] }, e: 1, f: 2 },
  )
})
