/**
 * The events social publishes: its JetStream stream and subjects (a public interface, see
 * proto/cairn/social/v1/events.proto for the payloads).
 */
export const SOCIAL_STREAM = 'CAIRN_SOCIAL';
export const SOCIAL_SUBJECTS: readonly string[] = ['cairn.star.>', 'cairn.watch.>', 'cairn.reaction.>'];

export const Subject = {
  starCreated: 'cairn.star.created',
  starDeleted: 'cairn.star.deleted',
  watchCreated: 'cairn.watch.created',
  watchDeleted: 'cairn.watch.deleted',
  reactionCreated: 'cairn.reaction.created',
  reactionDeleted: 'cairn.reaction.deleted',
} as const;
