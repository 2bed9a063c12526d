// check.js — "Check yourself": short questions in lesson order (lesson/questions.js), each answered with
// a number or a choice, labelled and keyboard-usable. "Check" says right or wrong and explains in one or
// two sentences; the answer of a number question and every number of an explanation are the core's
// (each question's measure, asked once when the view is first shown; lesson/answer.js compares).
// "Show me" loads the shape in the view that shows it, through the element's state (parts/go-to.js).
import checkCss from '../styles/check.css?inline';
import { coreDetail, createLatest, el, useStyles } from '../kit.js';
import { checkAnswer } from '../lesson/answer.js';
import { QUESTIONS } from '../lesson/questions.js';
import { goTo } from '../parts/go-to.js';
import '../i18n/catalogs/en/check.js';  // the English words it speaks

let uid = 0;

export function createCheckView(root, ctx) {
  const { i18n } = ctx;
  const { t } = i18n;
  useStyles(root, 'check', checkCss);
  const latest = createLatest(root);
  const prefix = `check${++uid}`;
  let measured = null;  // question id -> Promise of its measure, asked once (at the first update or the first Check)
  const measures = () => (measured ??= new Map(QUESTIONS.map((q) => [q.id, q.measure(ctx.client)])));
  let shownOnce = false;

  /** The explanation: the catalog's sentence with the core's numbers (and the core's refusal, quoted). */
  function explanation(q, m) {
    const why = [t(`check.q.${q.id}.why`, m.params)];
    if (m.refusal) {
      const { text, detail } = i18n.coreError(m.refusal);
      why.push(' ', text, ' ', coreDetail(detail, i18n));
    }
    return why;
  }

  function question(q, n) {
    const id = `${prefix}-${q.id}`;
    const verdict = el('p', { className: 'check-verdict', id: `${id}-verdict`, role: 'status', dataset: { role: 'verdict' } });
    const shown = el('p', { className: 'note', role: 'status', dataset: { role: 'shown' } });
    let input = null, answer;
    if (q.kind === 'number') {
      input = el('input', { id: `${id}-answer`, name: `${id}-answer`, type: 'text', inputmode: 'decimal', autocomplete: 'off',
        spellcheck: 'false', 'aria-describedby': verdict.id, dataset: { role: 'answer' } });
      answer = el('div', 'check-number', el('label', { for: input.id }, t('check.answerLabel')), input);
    } else {
      answer = el('div', 'check-choices', ...q.choices.map((c) => el('label', 'check-choice',
        el('input', { type: 'radio', name: `${id}-choice`, value: c, dataset: { choice: c } }), ' ', t(`check.q.${q.id}.${c}`))));
    }
    const given = () => (input ? input.value : answer.querySelector('input:checked')?.value ?? null);

    async function check() {
      let m;
      try {
        m = await measures().get(q.id);
      } catch (e) {
        verdict.dataset.verdict = 'error';
        return verdict.replaceChildren(t('check.cannot'), ' ', coreDetail(e.message, i18n));
      }
      const r = checkAnswer(q, given(), m);
      verdict.dataset.verdict = r.verdict;
      input?.toggleAttribute('aria-invalid', r.verdict === 'invalid');
      if (r.verdict === 'invalid') return verdict.replaceChildren(t(`check.problem.${r.problem}`, { text: r.text ?? '' }));
      return verdict.replaceChildren(el('strong', null, t(`check.${r.verdict}`)), ' ', ...explanation(q, m));
    }

    async function show() {
      let target;
      try {
        target = await q.show(ctx.client);
      } catch (e) {
        shown.dataset.how = 'error';
        return shown.replaceChildren(t('check.cannotShow'), ' ', coreDetail(e.message, i18n));
      }
      const how = goTo(ctx, root, target);
      shown.dataset.how = String(how);
      const where = target.section === 'controls' ? t('shell.controls') : t(`view.${target.section}.short`);
      shown.textContent = how === 'applied' ? t('check.shownHere', { where }) : how === 'opened' ? t('check.shownThere', { where })
        : t('check.noPlayground');
    }

    return el('li', { className: 'check-q', dataset: { question: q.id } },
      el('form', { novalidate: true, onsubmit: (e) => { e.preventDefault(); check(); } },
        el('fieldset', null, el('legend', null, el('span', 'check-n', `${n + 1}.`), ' ', t(`check.q.${q.id}.text`)), answer,
          el('div', 'check-buttons',
            el('button', { type: 'submit', className: 'primary', dataset: { action: 'check' } }, t('check.check')),
            el('button', { type: 'button', dataset: { action: 'show-me' }, onclick: show }, t('check.showMe'))),
          verdict, shown)));
  }

  const list = el('ol', { className: 'check-list', dataset: { role: 'questions' } }, ...QUESTIONS.map(question));
  root.replaceChildren(el('p', 'note', t('check.intro')), list);

  return {
    update() {
      if (shownOnce) return;  // the questions depend on nothing in the state
      shownOnce = true;
      latest.run(() => Promise.allSettled([...measures().values()]), (settled) => ({
        questions: QUESTIONS.map((q, i) => ({ id: q.id, kind: q.kind, measured: settled[i].status === 'fulfilled' })),
      }));
    },
    destroy() { latest.cancel(); root.replaceChildren(); },
  };
}
