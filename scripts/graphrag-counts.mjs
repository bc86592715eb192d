#!/usr/bin/env node
// graphrag-counts.mjs DIR: counts a GraphRAG output directory with
// hyparquet (Hyperparam's pure-JS parquet reader, pinned by
// .ci/services.sh), a parquet reader independent of the parquet-go that
// memscope uses, and prints them as JSON. internal/readers'
// TestGraphRAGCountsMatchHyparquet compares them with memscope's.
//
// DIR is the directory holding the tables: text_units, entities,
// relationships and documents.parquet (GraphRAG 2.x/3.x,
// graphrag/data_model/schemas.py) or their create_final_ names (0.2-1.x).
// The graph counts follow the rules docs/STORES.md states for GraphRAG,
// written again here from the tables, not from memscope's code: a text
// unit is a passage (first row of each non-empty id); an entity (column
// title, or name before 0.5) is a node unless empty or already a node; each
// entity joins each distinct text unit its text_unit_ids names; a
// relationship is an edge when both endpoints are nodes and its weight is
// not negative, a no-source edge when its text_unit_ids is empty.
//
// The node_modules directory holding hyparquet is MEMSCOPE_NPM_MODULES, or
// $MEMSCOPE_CACHE/npm/node_modules (default ~/.cache/memscope).
import { createRequire } from 'node:module'
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const dir = process.argv[2]
if (!dir) {
  console.error('usage: graphrag-counts.mjs OUTPUT_DIR')
  process.exit(2)
}
const cache = process.env.MEMSCOPE_CACHE || join(homedir(), '.cache', 'memscope')
const modules = process.env.MEMSCOPE_NPM_MODULES || join(cache, 'npm', 'node_modules')
const req = createRequire(join(modules, 'resolve.js'))
const load = async (name) => import(pathToFileURL(req.resolve(name)).href)
const { asyncBufferFromFile, parquetMetadataAsync, parquetSchema, parquetReadObjects } = await load('hyparquet')
const { compressors } = await load('hyparquet-compressors')

const prefix = existsSync(join(dir, 'text_units.parquet')) ? '' : 'create_final_'

// read returns the rows of table (only the columns named) and the
// table's top-level column names.
async function read(table, columns) {
  const path = join(dir, prefix + table + '.parquet')
  if (!existsSync(path)) return null
  const file = await asyncBufferFromFile(path)
  const metadata = await parquetMetadataAsync(file)
  const names = parquetSchema(metadata).children.map((c) => c.element.name)
  const want = columns.filter((c) => names.includes(c))
  const rows = await parquetReadObjects({ file, metadata, columns: want, compressors })
  return { rows, names, numRows: Number(metadata.num_rows) }
}

const text = (v) => (v === null || v === undefined ? '' : String(v))
const list = (v) => (Array.isArray(v) ? v.map(text) : [])

const tu = await read('text_units', ['id'])
const units = new Set()
for (const r of tu.rows) {
  const id = text(r.id)
  if (id !== '') units.add(id)
}
const nodes = new Set(units)

const entProbe = await read('entities', [])
const key = entProbe.names.includes('title') ? 'title' : 'name'
const ent = await read('entities', [key, 'text_unit_ids'])
let entities = 0
let joins = 0
for (const r of ent.rows) {
  const title = text(r[key])
  if (title === '' || nodes.has(title)) continue
  nodes.add(title)
  entities++
  const seen = new Set()
  for (const u of list(r.text_unit_ids)) {
    if (units.has(u) && !seen.has(u)) {
      seen.add(u)
      joins++
    }
  }
}

const rel = await read('relationships', ['source', 'target', 'weight', 'text_unit_ids'])
let relationships = 0
let noSource = 0
for (const r of rel.rows) {
  if (!nodes.has(text(r.source)) || !nodes.has(text(r.target)) || Number(r.weight) < 0) continue
  relationships++
  if (list(r.text_unit_ids).length === 0) noSource++
}

const docs = await read('documents', [])
console.log(JSON.stringify({
  text_unit_rows: tu.numRows,
  entity_rows: ent.numRows,
  relationship_rows: rel.numRows,
  document_rows: docs ? docs.numRows : -1,
  passages: units.size,
  entities,
  joins,
  relationships,
  no_source: noSource,
}))
