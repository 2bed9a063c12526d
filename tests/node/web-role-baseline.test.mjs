// web-role-baseline.test.mjs: a head's score names a role only where it clearly beats what a head
// spreading its weight evenly would score on the same sequences (web/src/labs/role-baseline.js), and
// the page's words about head types and the labs' tasks say no more than the bundled data show.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO } from './helpers.mjs';

const load = (p) => import(pathToFileURL(path.join(REPO, p)).href);
const rb = await load('web/src/labs/role-baseline.js');
const zoo = await load('web/src/sources/zoo-roles.js');
await load('web/src/i18n/catalogs/en/zoo.js');  // the zoo's words, which the page loads with the zoo's files
const roleLabel = (s, t, n) => zoo.roleLabel(s, zoo.roleField(s, n), t);
const { roleOf, roleKey } = await load('web/src/labs/verdicts.js');
const { EN, loadI18n } = await load('web/src/i18n/index.js');
await load('web/src/i18n/catalogs/en/head-types.js');
const hi = await loadI18n('hi');
const manifest = JSON.parse(fs.readFileSync(path.join(REPO, 'web/zoo/manifest.json'), 'utf8'));

test('the uniform baseline: the mean of 1/(i+1) over the queries a score uses, and the bar a role must reach', () => {
  assert.ok(Math.abs(rb.uniformWeight(1, 3) - (1 / 2 + 1 / 3) / 2) < 1e-12);
  const u = rb.uniformScores(64, 32);
  assert.ok(Math.abs(u.previousToken - 0.0594) < 1e-4, String(u.previousToken));
  assert.equal(u.diagonal, u.previousToken);
  assert.equal(u.firstToken, u.previousToken);
  let copy = 0;
  for (let i = 32; i < 64; i++) copy += 1 / (i + 1);
  assert.ok(Math.abs(u.induction - copy / 32) < 1e-12, 'induction: the second copy\'s queries');
  assert.equal(rb.roleBar(0.2), 0.2 + rb.ROLE_SHARE * 0.8);
  assert.equal(rb.standsOut(0.09, u.diagonal), false, 'self 0.09 against about 0.06: no role');
  assert.equal(rb.standsOut(0.39, u.previousToken), true);
  // a short sentence needs a stronger head: 0.45 on the previous token beats nothing over 6 positions
  assert.equal(rb.standsOut(0.45, rb.uniformScores(6).previousToken), false);
  assert.equal(rb.clearRole({ previousToken: 0.39, diagonal: 0.19 }, ['previousToken', 'diagonal'], u), 'previousToken');
  assert.equal(rb.clearRole({ previousToken: 0.07, diagonal: 0.09 }, ['previousToken', 'diagonal'], u), '');
});

test('the bundled Shakespeare models: a map\'s title names a role only where the score clearly beats the uniform baseline', () => {
  const n = manifest.training.seqLen;
  const u = rb.uniformScores(n);
  // worked by hand, over the manifest's sequences: a score just above uniform names nothing, a strong one its role
  const weak = { previousToken: u.previousToken * 1.5, diagonal: u.diagonal, firstToken: u.firstToken, induction: u.induction };
  assert.equal(roleLabel(weak, EN.t, n), 'no role stands out');
  assert.equal(roleLabel(weak, hi.t, n), 'कोई भूमिका अलग से नहीं दिखती');
  assert.equal(roleLabel({ ...weak, previousToken: 0.39 }, EN.t, n), 'previous token 0.39');
  // every label the bundled models show names a score above its bar (whatever the shipped weights)
  for (const m of manifest.models) {
    for (const s of m.headScores) {
      const label = roleLabel(s, EN.t, n);
      if (label === 'no role stands out') continue;
      const value = Number(label.split(' ').at(-1));
      assert.ok(value >= rb.roleBar(u.previousToken) - 0.005 || label.startsWith('induction'), `${m.id} L${s.layer}h${s.head}: ${label}`);
    }
  }
});

test('Lab 4: a role needs a score above 0.5 that also clearly beats the uniform baseline of its sequences', () => {
  assert.equal(roleOf({ previousToken: 0.61, induction: 0.03, firstToken: 0.04, diagonal: 0.08 }), 'previous-token head');
  // over 4 positions a uniform head scores (1/2 + 1/3 + 1/4) / 3 = 0.36 on the previous token: 0.51 is no role
  assert.equal(roleKey({ previousToken: 0.51, induction: 0, firstToken: 0, diagonal: 0 }, 4), '');
  assert.equal(roleKey({ previousToken: 0.51, induction: 0, firstToken: 0, diagonal: 0 }, 32), 'previousToken');
});

test('head types and the labs\' tasks: no more than the data show, in English and Hindi', () => {
  assert.doesNotMatch(EN.t('headTypes.previous.what'), /\bmost of each query/);
  assert.doesNotMatch(hi.t('headTypes.previous.what'), /हर क्वेरी का ज़्यादातर वेट/);
  // Lab 1's default task is two tokens back: its subtitle and the head-types box say so
  assert.match(EN.t('view.lab-heads.intro'), /two tokens before each position/);
  assert.match(hi.t('view.lab-heads.intro'), /पहले के दो टोकन/);
  assert.doesNotMatch(EN.t('headTypes.copy.where'), /Lab 1 and Lab 2 train models on a copy task/);
  assert.match(EN.t('headTypes.copy.where'), /its default is two tokens back/);
  assert.match(hi.t('headTypes.copy.where'), /डिफ़ॉल्ट दो टोकन पीछे/);
});

test('the head-types box quotes no figure of the bundled models (the notes under their maps do, from the manifest)', () => {
  for (const i18n of [EN, hi]) assert.doesNotMatch(i18n.t('headTypes.previous.where'), /\d/);
});
