# Several bodies in one resource expression separated by `;`, each its own
# resource in body order, plus a `default:` body whose attributes apply to the
# others (here a before => metaparameter).
notify { 'end': }
notify {
  default: before => Notify['end'];
  'one': ;
  'two': message => 'hello';
}
notify { 'free': }
