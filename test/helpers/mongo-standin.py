#!/usr/bin/python3
# Wire-level MongoDB STAND-IN for tests (docs/deployment.md says why): mockupdb speaks the protocol, mongomock is the
# engine. Never proof of MongoDB behaviour.
"""
Usage: /usr/bin/python3 mongo-standin.py [--record FILE]
With --record, every command it receives is appended to FILE as one line of extended JSON (a test inspects them).
Listens on 127.0.0.1 (a port the OS picks), prints "READY <port>" once it accepts connections, and serves until
stdin closes (so it dies with the test process that started it). Requests are served one at a time (no concurrency).

Four fidelity fixes make mongomock behave like mongod where the adapters depend on it:
  1. E11000 duplicate key errors name the index ("... index: <name> dup key: { ... }") and carry keyPattern/keyValue;
  2. $max and $min compare in BSON order (null < numbers < strings < ... < dates), where mongomock used Python's;
  3. a findAndModify update given as a pipeline of $set stages is applied as the one $set it amounts to;
  4. {$binarySize: "$field"} in an aggregation's last $project (mongomock lacks the operator) is the field's length.
Commands it does not implement are refused with code 59 (CommandNotFound); transactions with code 20, as a
standalone mongod does.
"""
import datetime
import sys
import threading
from collections import OrderedDict

import mongomock
import mongomock.collection as mongomock_collection
from bson import Int64, SON, json_util
from mockupdb import MockupDB
from mongomock import filtering, helpers
from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError, OperationFailure, WriteError

MAX_WIRE_VERSION = 17  # what MongoDB 6.0 announces; the Node driver refuses servers below 4.2 (wire 8)


# --- fidelity fix 1: duplicate key errors that name the index, as mongod's do --------------------------------------

def _duplicate_key_error(collection, index_name, key_pattern, key_value):
    shown = ', '.join('%s: %r' % (k, v) for k, v in key_value.items())
    message = 'E11000 duplicate key error collection: %s index: %s dup key: { %s }' % (collection.full_name, index_name, shown)
    return DuplicateKeyError(message, 11000, {'errmsg': message, 'code': 11000, 'keyPattern': key_pattern, 'keyValue': key_value})


def _ensure_uniques(self, new_data):
    # mongomock's own check, with the index name and key kept for the message (new_data is already in the store).
    for name, index in self._store.indexes.items():
        if not index.get('unique'):
            continue
        key_value = OrderedDict()
        for key, _ in index.get('key'):
            try:
                key_value[key] = helpers.get_value_by_dot(new_data, key)
            except KeyError:
                key_value[key] = None
        if index.get('sparse') and set(key_value.values()) == {None}:
            continue
        query = dict(key_value)
        partial = index.get('partialFilterExpression')
        if partial is not None:
            if not filtering.filter_applies(partial, new_data):
                continue
            query = {'$and': [partial, query]}
        if len(list(self._iter_documents(query))) > 1:
            key_pattern = OrderedDict((key, direction) for key, direction in index.get('key'))
            raise _duplicate_key_error(self, name, key_pattern, key_value)


mongomock_collection.Collection._ensure_uniques = _ensure_uniques


def _named(error, collection, document_id):
    """mongomock's only other E11000 is a taken _id: say so the way mongod does."""
    if isinstance(error, DuplicateKeyError) and 'index:' not in str(error):
        return _duplicate_key_error(collection, '_id_', {'_id': 1}, {'_id': document_id})
    return error


# --- fidelity fix 2: $max / $min in BSON order --------------------------------------------------------------------

def _bson_extreme(pick_greater):
    def updater(doc, field_name, value):
        if not isinstance(doc, dict):
            return
        if field_name not in doc:
            doc[field_name] = value
            return
        current = doc[field_name]
        greater = filtering.BsonComparable(current) < filtering.BsonComparable(value)
        if greater == pick_greater:
            doc[field_name] = value
    return updater


mongomock_collection._updaters['$max'] = _bson_extreme(pick_greater=True)
mongomock_collection._updaters['$min'] = _bson_extreme(pick_greater=False)


# --- the commands ---------------------------------------------------------------------------------------------------

class CommandError(Exception):
    def __init__(self, code, message, code_name):
        super().__init__(message)
        self.code = code
        self.code_name = code_name


def _naive_utc(value):
    """mongomock keeps naive UTC datetimes; compare like with like."""
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        return value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    if isinstance(value, dict):
        return type(value)((k, _naive_utc(v)) for k, v in value.items())
    if isinstance(value, list):
        return [_naive_utc(v) for v in value]
    return value


def _sort(spec):
    return list(spec.items()) if spec else None


# --- fidelity fix 3: an update given as a pipeline of $set stages, reading the stored document ------------------------

def _from_pipeline(update, existing):
    """A pipeline of $set/$addFields stages as the one $set mongod would apply to `existing`: a "$field" value reads
    the document as it stood before that stage; anything else is a literal. Other stages are refused."""
    if not isinstance(update, list):
        return update
    current, changed = dict(existing or {}), {}
    for stage in update:
        (name, fields), = stage.items()
        if name not in ('$set', '$addFields'):
            raise CommandError(59, 'pipeline stage %s in an update is not implemented by the stand-in' % name, 'CommandNotFound')
        values = {field: current.get(value[1:]) if isinstance(value, str) and value.startswith('$') else value for field, value in fields.items()}
        current.update(values)
        changed.update(values)
    return {'$set': changed}


def _is_replacement(update):
    return isinstance(update, dict) and not any(key.startswith('$') for key in update)


def _cursor(db, collection, docs):
    return {'cursor': {'firstBatch': list(docs), 'id': Int64(0), 'ns': '%s.%s' % (db.name, collection)}}


def _message(error):
    """The bare message (pymongo's str() appends the full error document)."""
    details = getattr(error, 'details', None) or {}
    return details.get('errmsg') or (error.args[0] if error.args else str(error))


def _write_error(index, error):
    details = getattr(error, 'details', None) or {}
    entry = {'index': index, 'code': getattr(error, 'code', None) or 2, 'errmsg': _message(error)}
    for key in ('keyPattern', 'keyValue'):
        if key in details:
            entry[key] = details[key]
    return entry


def _writes(items, ordered, apply):
    """Applies each item (apply returns how many documents it matched or wrote) and replies as mongod does:
    n, then writeErrors for the items that failed, stopping at the first when ordered."""
    n, errors = 0, []
    for index, item in enumerate(items):
        try:
            n += apply(item, index)
        except (WriteError, OperationFailure) as error:
            errors.append(_write_error(index, error))
            if ordered:
                break
    return {'n': n, **({'writeErrors': errors} if errors else {})}


def cmd_insert(db, doc):
    collection = db[doc['insert']]

    def insert(document, _):
        try:
            collection.insert_one(document)
        except DuplicateKeyError as error:
            raise _named(error, collection, document.get('_id'))
        return 1

    return _writes(doc.get('documents', []), doc.get('ordered', True), insert)


def cmd_update(db, doc):
    collection = db[doc['update']]
    modified = 0
    upserted = []

    def update(spec, index):
        nonlocal modified
        query, change, upsert = spec.get('q', {}), spec['u'], spec.get('upsert', False)
        options = {'upsert': upsert}
        if spec.get('arrayFilters'):
            options['array_filters'] = spec['arrayFilters']
        try:
            if _is_replacement(change):
                result = collection.replace_one(query, change, upsert=upsert)
            elif spec.get('multi'):
                result = collection.update_many(query, change, **options)
            else:
                result = collection.update_one(query, change, **options)
        except DuplicateKeyError as error:
            raise _named(error, collection, query.get('_id') if isinstance(query, dict) else None)
        modified += result.modified_count
        if result.upserted_id is None:
            return result.matched_count
        upserted.append({'index': index, '_id': result.upserted_id})
        return result.matched_count + 1

    reply = _writes(doc.get('updates', []), doc.get('ordered', True), update)
    reply['nModified'] = modified
    if upserted:
        reply['upserted'] = upserted
    return reply


def cmd_delete(db, doc):
    collection = db[doc['delete']]

    def delete(spec, _):
        if spec.get('limit', 0) == 1:
            return collection.delete_one(spec.get('q', {})).deleted_count
        return collection.delete_many(spec.get('q', {})).deleted_count

    return _writes(doc.get('deletes', []), doc.get('ordered', True), delete)


def cmd_find(db, doc):
    name = doc['find']
    limit = abs(int(doc.get('limit', 0) or 0))
    if doc.get('singleBatch') and doc.get('batchSize'):
        limit = min(limit or int(doc['batchSize']), int(doc['batchSize']))
    cursor = db[name].find(doc.get('filter', {}), projection=doc.get('projection') or None,
                           skip=int(doc.get('skip', 0) or 0), limit=limit, sort=_sort(doc.get('sort')))
    return _cursor(db, name, cursor)


def cmd_find_and_modify(db, doc):
    collection = db[doc['findAndModify']]
    query, sort, fields = doc.get('query', {}), _sort(doc.get('sort')), doc.get('fields') or None
    existing = collection.find_one(query, sort=sort)
    if doc.get('remove'):
        value = collection.find_one_and_delete(query, projection=fields, sort=sort)
        return {'value': value, 'lastErrorObject': {'n': 1 if value is not None else 0}}
    change, upsert = _from_pipeline(doc['update'], existing), doc.get('upsert', False)
    returned = ReturnDocument.AFTER if doc.get('new') else ReturnDocument.BEFORE
    try:
        if _is_replacement(change):
            value = collection.find_one_and_replace(query, change, projection=fields, sort=sort, upsert=upsert, return_document=returned)
        else:
            options = {'array_filters': doc['arrayFilters']} if doc.get('arrayFilters') else {}
            value = collection.find_one_and_update(query, change, projection=fields, sort=sort, upsert=upsert, return_document=returned, **options)
    except DuplicateKeyError as error:
        named = _named(error, collection, query.get('_id'))
        raise CommandError(11000, _message(named), 'DuplicateKey') from named
    last_error = {'n': 1 if existing is not None or upsert else 0, 'updatedExisting': existing is not None}
    if existing is None and upsert:
        inserted = collection.find_one(query, sort=sort)
        if inserted is not None:
            last_error['upserted'] = inserted['_id']
    return {'value': value, 'lastErrorObject': last_error}


# --- fidelity fix 4: $binarySize in the last $project of an aggregation ---------------------------------------------

def _binary_sizes(pipeline):
    """The pipeline with the last $project's {$binarySize: "$source"} fields replaced by a projection of their
    source under a private name, and {output field: private name} to turn those back into lengths after it ran."""
    sizes = OrderedDict()
    stages = list(pipeline)
    for at, stage in enumerate(stages):
        project = stage.get('$project') if isinstance(stage, dict) else None
        if not isinstance(project, dict):
            continue
        asked = {field: spec for field, spec in project.items() if isinstance(spec, dict) and '$binarySize' in spec}
        if not asked:
            continue
        if at != len(stages) - 1:
            raise CommandError(59, '$binarySize outside the last $project is not implemented by the stand-in',
                               'CommandNotFound')
        rewritten = OrderedDict(project)
        for field, spec in asked.items():
            private = '__binary_size_' + field
            rewritten.pop(field)
            rewritten[private] = spec['$binarySize']
            sizes[field] = private
        stages[at] = {'$project': rewritten}
    return stages, sizes


def cmd_aggregate(db, doc):
    name = doc['aggregate']
    if not isinstance(name, str):
        raise CommandError(59, 'the stand-in aggregates collections only', 'CommandNotFound')
    pipeline, sizes = _binary_sizes(doc.get('pipeline', []))
    docs = list(db[name].aggregate(pipeline))
    for out in docs:
        for field, private in sizes.items():
            value = out.pop(private, None)
            out[field] = None if value is None else len(value)
    return _cursor(db, name, docs)


def cmd_count(db, doc):
    options = {key: int(doc[key]) for key in ('skip', 'limit') if doc.get(key)}
    return {'n': db[doc['count']].count_documents(doc.get('query', {}), **options)}


def cmd_distinct(db, doc):
    return {'values': db[doc['distinct']].distinct(doc['key'], doc.get('query') or None)}


INDEX_OPTIONS = ('unique', 'sparse', 'partialFilterExpression', 'expireAfterSeconds', 'background')


def cmd_create_indexes(db, doc):
    collection = db[doc['createIndexes']]
    before = len(collection.index_information())
    for spec in doc.get('indexes', []):
        options = {key: spec[key] for key in INDEX_OPTIONS if key in spec}
        try:
            collection.create_index(list(spec['key'].items()), name=spec['name'], **options)
        except DuplicateKeyError as error:
            raise CommandError(11000, _message(error), 'DuplicateKey') from error
    return {'numIndexesBefore': before, 'numIndexesAfter': len(collection.index_information()), 'createdCollectionAutomatically': before == 0}


def _exists(db, name):
    return name in db.list_collection_names()


def cmd_list_indexes(db, doc):
    name = doc['listIndexes']
    if not _exists(db, name):
        raise CommandError(26, 'ns does not exist: %s.%s' % (db.name, name), 'NamespaceNotFound')
    indexes = []
    for index_name, info in db[name].index_information().items():
        entry = {'v': 2, 'key': SON(info['key']), 'name': index_name}
        entry.update({key: info[key] for key in INDEX_OPTIONS if key in info})
        indexes.append(entry)
    return _cursor(db, name, indexes)


def cmd_list_collections(db, doc):
    found = [{'name': name, 'type': 'collection', 'options': {}, 'info': {'readOnly': False}} for name in db.list_collection_names()]
    wanted = doc.get('filter') or {}
    return _cursor(db, '$cmd.listCollections', [entry for entry in found if filtering.filter_applies(wanted, entry)])


def cmd_create(db, doc):
    if _exists(db, doc['create']):
        raise CommandError(48, 'Collection %s.%s already exists.' % (db.name, doc['create']), 'NamespaceExists')
    db.create_collection(doc['create'])
    return {}


def cmd_drop(db, doc):
    if not _exists(db, doc['drop']):
        raise CommandError(26, 'ns not found', 'NamespaceNotFound')
    db.drop_collection(doc['drop'])
    return {'ns': '%s.%s' % (db.name, doc['drop']), 'nIndexesWas': 1}


def cmd_drop_database(db, doc):
    db.client.drop_database(db.name)
    return {'dropped': db.name}


def cmd_hello(db, doc):
    return {
        'helloOk': True, 'isWritablePrimary': True, 'ismaster': True,
        'maxBsonObjectSize': 16 * 1024 * 1024, 'maxMessageSizeBytes': 48000000, 'maxWriteBatchSize': 100000,
        'localTime': datetime.datetime.now(datetime.timezone.utc), 'connectionId': 1,
        'minWireVersion': 0, 'maxWireVersion': MAX_WIRE_VERSION, 'readOnly': False,
    }


def cmd_build_info(db, doc):
    return {'version': '6.0.0-standin', 'versionArray': [6, 0, 0, 0], 'gitVersion': 'mockupdb+mongomock stand-in', 'bits': 64, 'maxBsonObjectSize': 16 * 1024 * 1024}


def cmd_nothing(db, doc):
    return {}


COMMANDS = {
    'hello': cmd_hello, 'ismaster': cmd_hello, 'isMaster': cmd_hello,
    'ping': cmd_nothing, 'endSessions': cmd_nothing, 'getParameter': cmd_nothing,
    'buildInfo': cmd_build_info, 'buildinfo': cmd_build_info,
    'killCursors': lambda db, doc: {'cursorsKilled': [], 'cursorsNotFound': doc.get('cursors', []), 'cursorsAlive': [], 'cursorsUnknown': []},
    'insert': cmd_insert, 'update': cmd_update, 'delete': cmd_delete,
    'find': cmd_find, 'findAndModify': cmd_find_and_modify, 'findandmodify': cmd_find_and_modify,
    'aggregate': cmd_aggregate, 'count': cmd_count, 'distinct': cmd_distinct,
    'createIndexes': cmd_create_indexes, 'listIndexes': cmd_list_indexes, 'listCollections': cmd_list_collections,
    'create': cmd_create, 'drop': cmd_drop, 'dropDatabase': cmd_drop_database,
}


def serve(client, request, record=None):
    """One autoresponder for every request: run the command on mongomock and reply in mongod's shape."""
    doc = _naive_utc(request.doc)
    name = request.command_name
    if record is not None:
        record.write(json_util.dumps({'command': name, 'doc': doc}, json_options=json_util.CANONICAL_JSON_OPTIONS) + '\n')
        record.flush()
    db = client[doc.get('$db') or (request.namespace or 'admin').split('.')[0]]
    try:
        if 'startTransaction' in doc or 'autocommit' in doc:
            raise CommandError(20, 'Transaction numbers are only allowed on a replica set member or mongos', 'IllegalOperation')
        command = COMMANDS.get(name)
        if command is None:
            raise CommandError(59, "no such command: '%s' (not implemented by the stand-in)" % name, 'CommandNotFound')
        reply = command(db, doc)
        reply['ok'] = 1
    except CommandError as error:
        reply = {'ok': 0, 'code': error.code, 'codeName': error.code_name, 'errmsg': str(error)}
        details = getattr(error.__cause__, 'details', None) or {}
        reply.update({key: details[key] for key in ('keyPattern', 'keyValue') if key in details})
    except Exception as error:  # noqa: BLE001 - a mongomock gap must reach the client as an error, not kill the server
        reply = {'ok': 0, 'code': 8000, 'codeName': 'StandInError', 'errmsg': 'stand-in (mongomock) failed: %s: %s' % (type(error).__name__, error)}
    request.replies(reply)
    return True


def main():
    record = open(sys.argv[2], 'a', encoding='utf-8') if sys.argv[1:2] == ['--record'] else None
    client = mongomock.MongoClient()
    server = MockupDB(port=None, request_timeout=int(1e6))
    server._address = ('127.0.0.1', None)  # loopback only, a port the OS picks
    server.autoresponds(lambda request: serve(client, request, record))
    port = server.run()
    print('READY %d' % port, flush=True)
    # Lives as long as its parent holds stdin open: a crashed test run never leaves it behind.
    done = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    done.wait()
    server.stop()


if __name__ == '__main__':
    main()
