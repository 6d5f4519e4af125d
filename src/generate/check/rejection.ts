/** Why a question was not kept: the validator that refused it (v1–v4 structural, c1–c3 content, diversity, phi) and its reason. */
export interface Rejection {
  questionId: string;
  reportId: string;
  validator: string;
  reason: string;
}
