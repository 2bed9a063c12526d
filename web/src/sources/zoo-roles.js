// zoo-roles.js — which score names each head's role on a bundled Shakespeare model's maps, and the
// words of its label (sources/zoo-model.js, imported with its first maps): its strongest score where
// that clearly beats a uniform head's (labs/role-baseline.js), else none.
import { clearRole, uniformScores } from '../labs/role-baseline.js';
import '../i18n/catalogs/en/zoo.js';  // the English words it speaks

/** The scores a head's label may name, in the order ties go. */
export const ROLE_FIELDS = ['previousToken', 'diagonal', 'firstToken', 'induction'];

/** The field of a head's score that names its role on sequences of `n` tokens, '' when none stands out. */
export const roleField = (score, n) => clearRole(score, ROLE_FIELDS, uniformScores(n));

/** A head's label: the role's score and value ("previous token 0.39"), or that no role stands out (field ''). */
const ROLE_WORDS = { previousToken: 'zoo.role.previous', diagonal: 'zoo.role.self', firstToken: 'zoo.role.first', induction: 'zoo.role.induction' };
export const roleLabel = (score, field, t) => t(ROLE_WORDS[field] ?? 'zoo.role.none', { value: score[field]?.toFixed(2) });
