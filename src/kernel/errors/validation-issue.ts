/** One entry of a 400 validation `detail` list, named as pydantic names them. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}
