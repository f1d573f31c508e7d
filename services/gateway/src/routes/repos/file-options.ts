/**
 * The contents API's request bodies (modules/structs/repo_file.go): Gitea's FileOptions (message, branch,
 * new branch, author, committer, dates, signoff) and the create, update, delete and multi-file options built on
 * them. The nested `author`, `committer`, `dates` and `files` are bound with their own structs, as Go decodes
 * them; their rules report the nested field (`[Operation]: Required`).
 */
import { type BindResult, type GoStruct, go, goStruct } from '@cairn/http';

export const Identity = goStruct('Identity', {
  name: go.string('Name', { maxSize: 100 }),
  email: go.string('Email', { maxSize: 254 }),
});

export const CommitDateOptions = goStruct('CommitDateOptions', {
  author: go.timePtr('Author'),
  committer: go.timePtr('Committer'),
});

export const FILE_OPERATIONS = ['create', 'update', 'upload', 'rename', 'delete'] as const;

export const ChangeFileOperation = goStruct('ChangeFileOperation', {
  operation: go.string('Operation', { required: true, in: FILE_OPERATIONS }),
  path: go.string('Path', { required: true, maxSize: 500 }),
  content: go.string('ContentBase64'),
  sha: go.string('SHA'),
  from_path: go.string('FromPath', { maxSize: 500 }),
});

type ValueOf<S> = S extends GoStruct<infer T> ? T : never;
export type IdentityValue = ValueOf<typeof Identity>;
export type DatesValue = ValueOf<typeof CommitDateOptions>;
export type FileOperationValue = ValueOf<typeof ChangeFileOperation>;

/** The nested parts every FileOptions has, and the raw date texts (their time zones become the commit's). */
export interface NestedFileOptions {
  author: IdentityValue;
  committer: IdentityValue;
  dates: DatesValue;
  /** `dates.author` / `dates.committer` as sent, for their UTC offsets. */
  dateTexts: { author?: string; committer?: string };
}

const FILE_OPTION_FIELDS = {
  message: go.string('Message'),
  branch: go.string('BranchName', { gitRefName: true, maxSize: 100 }),
  new_branch: go.string('NewBranchName', { gitRefName: true, maxSize: 100 }),
  signoff: go.bool('Signoff'),
  force_push: go.bool('ForcePush'),
};

/** The value of `key` in a JSON object, matched case-insensitively as encoding/json does (later keys win). */
function jsonValue(body: unknown, key: string): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  let found: unknown;
  for (const [name, value] of Object.entries(body)) if (name.toLowerCase() === key) found = value;
  return found;
}

function nested<T>(struct: GoStruct<T>, json: unknown): BindResult<T> {
  return struct.bind(json === null ? undefined : json);
}

/** `struct`'s own fields, then FileOptions' nested parts. */
function withFileOptions<T>(name: string, struct: GoStruct<T>): GoStruct<T & NestedFileOptions> {
  return {
    name,
    bind(body) {
      const outer = struct.bind(body);
      if (!outer.ok) return outer;
      const author = nested(Identity, jsonValue(body, 'author'));
      if (!author.ok) return author;
      const committer = nested(Identity, jsonValue(body, 'committer'));
      if (!committer.ok) return committer;
      const rawDates = jsonValue(body, 'dates');
      const dates = nested(CommitDateOptions, rawDates);
      if (!dates.ok) return dates;
      const text = (key: string) => {
        const value = jsonValue(rawDates, key);
        return typeof value === 'string' ? value : undefined;
      };
      return { ok: true, value: { ...outer.value, author: author.value, committer: committer.value, dates: dates.value, dateTexts: { author: text('author'), committer: text('committer') } } };
    },
  };
}

export const CreateFileOptions = withFileOptions(
  'CreateFileOptions',
  goStruct('CreateFileOptions', { ...FILE_OPTION_FIELDS, content: go.string('ContentBase64', { required: true }) }),
);

export const UpdateFileOptions = withFileOptions(
  'UpdateFileOptions',
  goStruct('UpdateFileOptions', {
    ...FILE_OPTION_FIELDS,
    content: go.string('ContentBase64', { required: true }),
    sha: go.string('SHA'),
    from_path: go.string('FromPath', { maxSize: 500 }),
  }),
);

export const DeleteFileOptions = withFileOptions(
  'DeleteFileOptions',
  goStruct('DeleteFileOptions', { ...FILE_OPTION_FIELDS, sha: go.string('SHA', { required: true }) }),
);

const ChangeFilesOuter = goStruct('ChangeFilesOptions', FILE_OPTION_FIELDS);

/** Gitea's `ChangeFilesOptions`: FileOptions and a required list of file operations. */
export const ChangeFilesOptions: GoStruct<ValueOf<typeof ChangeFilesOuter> & NestedFileOptions & { files: FileOperationValue[] }> = {
  name: 'ChangeFilesOptions',
  bind(body) {
    const options = withFileOptions('ChangeFilesOptions', ChangeFilesOuter).bind(body);
    if (!options.ok) return options;
    const rawFiles = jsonValue(body, 'files');
    if (rawFiles !== undefined && rawFiles !== null && !Array.isArray(rawFiles)) {
      return { ok: false, message: `[]: json: cannot unmarshal ${typeof rawFiles === 'object' ? 'object' : typeof rawFiles} into Go struct field ChangeFilesOptions.files of type []*structs.ChangeFileOperation` };
    }
    const list = Array.isArray(rawFiles) ? rawFiles : [];
    if (list.length === 0) return { ok: false, message: '[Files]: Required' };
    const files: FileOperationValue[] = [];
    for (const item of list) {
      const file = nested(ChangeFileOperation, item);
      if (!file.ok) return file;
      files.push(file.value);
    }
    return { ok: true, value: { ...options.value, files } };
  },
};
