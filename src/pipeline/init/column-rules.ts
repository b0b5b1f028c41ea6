/**
 * Which export column names stand for which API field, per entity. Names are compared normalised
 * (lower case, without `_`, `-`, `.` and spaces: `user_id`, `userId` and `User ID` are one name).
 * Each field has tiers of candidates: the first tier with a column present decides, and two
 * columns in that tier are an ambiguity, never a silent choice. docs/init.md lists the same table.
 */
import type { EntityName } from '../../entities/types.js';

export interface FieldRule {
  /** API field (dotted), or `deletion.softField` for the soft-deletion marker. */
  field: string;
  tiers: readonly (readonly string[])[];
  /** For a message's receiver: the receiverType each candidate implies. */
  receiverTypes?: Readonly<Record<string, 'user' | 'group'>>;
}

const GROUP_REFS = ['channelid', 'roomid', 'conversationid', 'groupid', 'chatid', 'channelurl', 'guid'];
const GROUP_WORDS = ['channel', 'room', 'conversation', 'group', 'chat'];
const USER_REFS = ['recipientid', 'receiverid', 'toid', 'touserid', 'touid', 'recipient', 'to', 'touser'];

const receiverTypes: Record<string, 'user' | 'group'> = Object.fromEntries([
  ...[...GROUP_REFS, ...GROUP_WORDS].map((n) => [n, 'group' as const]),
  ...USER_REFS.map((n) => [n, 'user' as const]),
]);

export const FIELD_RULES: Readonly<Record<EntityName, readonly FieldRule[]>> = {
  users: [
    { field: 'uid', tiers: [['uid'], ['userid', 'id', 'useruuid', 'accountid'], ['username', 'login', 'handle']] },
    {
      field: 'name',
      tiers: [
        ['name'],
        ['displayname', 'fullname', 'realname', 'nickname', 'screenname'],
        ['username', 'login', 'handle'],
      ],
    },
    {
      field: 'avatar',
      tiers: [
        ['avatar'],
        ['avatarurl', 'image', 'imageurl', 'picture', 'photo', 'photourl', 'profileurl', 'profileimage', 'icon'],
      ],
    },
    { field: 'link', tiers: [['link'], ['profilelink', 'url', 'homepage', 'website']] },
    { field: 'role', tiers: [['role']] },
    { field: 'createdAt', tiers: [['createdat'], ['created', 'joined', 'joinedat', 'registeredat', 'signupdate']] },
    { field: 'lastActiveAt', tiers: [['lastactiveat'], ['lastseen', 'lastseenat', 'lastlogin', 'lastloginat']] },
    { field: 'deactivatedAt', tiers: [['deactivatedat'], ['deletedat', 'disabledat']] },
    { field: 'metadata.email', tiers: [['email', 'emailaddress', 'mail']] },
    { field: 'metadata.phone', tiers: [['phone', 'phonenumber', 'mobile']] },
    { field: 'tags', tiers: [['tags']] },
  ],
  groups: [
    { field: 'guid', tiers: [['guid'], GROUP_REFS.filter((n) => n !== 'guid'), ['id']] },
    { field: 'name', tiers: [['name'], ['title', 'displayname', 'groupname', 'channelname', 'roomname', 'subject']] },
    { field: 'type', tiers: [['type'], ['visibility', 'privacy', 'grouptype', 'channeltype', 'access']] },
    { field: 'description', tiers: [['description'], ['purpose', 'about', 'summary', 'topic']] },
    { field: 'icon', tiers: [['icon'], ['iconurl', 'image', 'imageurl', 'avatar', 'avatarurl', 'cover', 'coverurl']] },
    { field: 'owner', tiers: [['owner'], ['ownerid', 'createdby', 'creator', 'creatorid', 'createdbyid']] },
    { field: 'createdAt', tiers: [['createdat'], ['created', 'createdtime', 'creationdate']] },
    { field: 'tags', tiers: [['tags']] },
  ],
  members: [
    { field: 'guid', tiers: [['guid'], [...GROUP_REFS.filter((n) => n !== 'guid'), ...GROUP_WORDS]] },
    {
      field: 'uid',
      tiers: [['uid'], ['userid', 'memberid', 'participantid', 'user', 'member', 'participant', 'identity']],
    },
    { field: 'scope', tiers: [['scope'], ['role', 'memberrole', 'permission']] },
    { field: 'joinedAt', tiers: [['joinedat'], ['joined', 'joindate', 'addedat', 'createdat', 'since']] },
    { field: 'isBanned', tiers: [['isbanned'], ['banned']] },
  ],
  messages: [
    { field: 'muid', tiers: [['muid'], ['messageid', 'msgid', 'mid', 'postid'], ['id', 'uuid']] },
    {
      field: 'sender',
      tiers: [
        ['sender'],
        ['senderid', 'userid', 'authorid', 'fromid', 'fromuser', 'fromuserid', 'senderuid', 'useruid'],
        ['from', 'author', 'user', 'username'],
      ],
    },
    { field: 'receiver', tiers: [['receiver'], [...GROUP_REFS, ...USER_REFS], GROUP_WORDS], receiverTypes },
    { field: 'receiverType', tiers: [['receivertype']] },
    {
      field: 'sentAt',
      tiers: [
        ['sentat'],
        ['createdat', 'timestamp', 'ts', 'senttime', 'postedat', 'datetime', 'createtime'],
        ['date', 'time', 'created', 'sent', 'posted'],
      ],
    },
    {
      field: 'data.text',
      tiers: [['datatext'], ['text', 'body', 'message', 'content', 'msg', 'messagetext', 'messagebody']],
    },
    { field: 'type', tiers: [['type'], ['messagetype', 'msgtype']] },
    { field: 'category', tiers: [['category']] },
    { field: 'deliveredAt', tiers: [['deliveredat']] },
    { field: 'readAt', tiers: [['readat']] },
    { field: 'data.metadata.editedAt', tiers: [['editedat', 'updatedat', 'edited', 'editedtime']] },
    {
      field: 'data.metadata.parentId',
      tiers: [['parentid', 'threadid', 'inreplyto', 'replyto', 'parentmessageid', 'threadts', 'rootid']],
    },
    { field: 'deletion.softField', tiers: [['deletedat', 'removedat']] },
    { field: 'tags', tiers: [['tags']] },
  ],
};

/** Names so common that they count for little when telling which entity a file holds. */
export const GENERIC = new Set(['id', 'name', 'type', 'created', 'createdat', 'date', 'time', 'user', 'tags']);

/**
 * Fields that must have a value for the service; the ones `values` can give (`receiverType`,
 * `type`, a group's `type`) are filled there when the export has no column.
 */
export const REQUIRED: Readonly<Record<EntityName, readonly string[]>> = {
  users: ['uid', 'name'],
  groups: ['guid', 'name'],
  members: ['guid', 'uid'],
  messages: ['muid', 'sender', 'receiver', 'sentAt'],
};

/** Where columns with no API field are kept (members have no metadata: they are left out). */
export const METADATA_AT: Readonly<Record<EntityName, string | undefined>> = {
  users: 'metadata',
  groups: 'metadata',
  members: undefined,
  messages: 'data.metadata',
};

export const normalize = (name: string): string => name.toLowerCase().replace(/[\s_.-]+/g, '');
