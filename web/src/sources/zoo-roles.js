// zoo-roles.js — which score names each head's role on a bundled Shakespeare model's maps
// (sources/zoo.js, imported with its first maps, which words it): its strongest score where that
// clearly beats a uniform head's (labs/role-baseline.js), else none.
import { clearRole, uniformScores } from '../labs/role-baseline.js';

/** The scores a head's label may name, in the order ties go. */
export const ROLE_FIELDS = ['previousToken', 'diagonal', 'firstToken', 'induction'];

/** The field of a head's score that names its role on sequences of `n` characters, '' when none stands out. */
export const roleField = (score, n) => clearRole(score, ROLE_FIELDS, uniformScores(n));
