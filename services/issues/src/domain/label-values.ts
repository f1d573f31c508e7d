/**
 * What a label may hold. Gitea keeps names and descriptions in VARCHAR(255) columns (a longer one is a database
 * error there); here the limit is a clear refusal. Names are required and kept as given.
 */
import { CairnError } from '@cairn/rpc';
import type { LabelValues } from '../store/labels';
import { normalizeLabelColor } from './label-color';

export const LABEL_NAME_MAX = 255;
export const LABEL_DESCRIPTION_MAX = 255;

export interface LabelInput {
  name: string;
  color: string;
  description: string;
  exclusive: boolean;
  archived: boolean;
}

/** The values to store, or INVALID_ARGUMENT naming what is wrong. */
export function labelValues(input: LabelInput): LabelValues {
  if (input.name === '') throw CairnError.invalid('label name is required', { reason: 'label_name_required' });
  if ([...input.name].length > LABEL_NAME_MAX) throw CairnError.invalid(`label name is longer than ${LABEL_NAME_MAX} characters`, { reason: 'label_name_too_long' });
  if ([...input.description].length > LABEL_DESCRIPTION_MAX) {
    throw CairnError.invalid(`label description is longer than ${LABEL_DESCRIPTION_MAX} characters`, { reason: 'label_description_too_long' });
  }
  return { ...input, color: normalizeLabelColor(input.color) };
}
